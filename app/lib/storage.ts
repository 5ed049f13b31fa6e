/** Keys kept in the browser's storage (docs/product/01-account-and-lobby.md §3, browser storage). */
export const USER_INFO_KEY = 'userInfo';
export const TOURIST_NAME_KEY = 'name'; // session storage
export const inviteKey = (roomNumber: string) => `invite_${roomNumber}`;
export const updateKey = (roomId: string) => `update_${roomId}`;

/** Storage can throw (private mode, quota); none of these flags is worth a crash. */
export function safeSet(storage: 'local' | 'session', key: string, value: string): void {
  try {
    (storage === 'local' ? localStorage : sessionStorage).setItem(key, value);
  } catch {
    // ignored: the flag is a convenience
  }
}

export function safeGet(storage: 'local' | 'session', key: string): string | null {
  try {
    return (storage === 'local' ? localStorage : sessionStorage).getItem(key);
  } catch {
    return null;
  }
}
