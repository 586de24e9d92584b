export interface User {
  username: string;
  email: string;
  restricted: boolean;
  ssh_keys: string[];
}

/** The address of a user's page. */
export function userPath(username: string): string {
  return `/account/users/${encodeURIComponent(username)}`;
}

/** The API's path of a user. */
export function userApi(username: string): string {
  return `/account/users/${encodeURIComponent(username)}`;
}
