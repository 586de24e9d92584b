import type { Generated } from 'kysely';

export interface ImageTable {
  /** Numeric sequence; private image ids are `private/<num>`. */
  num: Generated<number>;
  id: string;
  /** null for public images, which every account sees. */
  account_id: number | null;
  label: string;
  description: string | null;
  created: string;
  updated: string;
  created_by: string;
  deprecated: number;
  is_public: number;
  size: number;
  type: string;
  expiry: string | null;
  eol: string | null;
  vendor: string | null;
  status: string;
  sort: number;
  /** Region the image was created or uploaded in (private images). */
  region: string | null;
  /** Where the image's data lives in the blob store, once it has any. */
  blob_key: string | null;
  /** For automatic images: the deleted node they come from. */
  source_node_id: number | null;
}

declare module '../../db/database.ts' {
  interface Database {
    images: ImageTable;
  }
}
