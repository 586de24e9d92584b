export interface TagTable {
  account_id: number;
  label: string;
  created: string;
}

/** Which objects carry which tag; entity_type is node, domain, nodebalancer, volume, firewall or image (by its num). */
export interface EntityTagTable {
  account_id: number;
  tag: string;
  entity_type: string;
  entity_id: number;
}

declare module '../../db/database.ts' {
  interface Database {
    tags: TagTable;
    entity_tags: EntityTagTable;
  }
}
