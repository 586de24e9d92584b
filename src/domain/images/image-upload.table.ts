export interface ImageUploadTable {
  image_id: string;
  account_id: number;
  /** Who started the upload; the upload's event names them. */
  user_id: number;
  /** SHA-256 of the upload URL's token. */
  token_hash: string;
  /** Service-clock ms after which the upload is refused and the image deleted. */
  expires_at: number;
  /** pending until data arrives, then received. */
  state: string;
}

declare module '../../db/database.ts' {
  interface Database {
    image_uploads: ImageUploadTable;
  }
}
