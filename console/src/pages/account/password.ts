import { ApiError } from '../../api.ts';

/** The API's own rule for a password (8 to 128 characters, not only white space), checked before a user is made. */
export function checkPassword(password: string): void {
  const reason =
    password.length < 8
      ? 'Must be at least 8 characters'
      : password.length > 128
        ? 'Must be at most 128 characters'
        : !/\S/.test(password)
          ? 'Must hold more than white space'
          : null;
  if (reason) throw new ApiError(400, [{ field: 'password', reason }]);
}
