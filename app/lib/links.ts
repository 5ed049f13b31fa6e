/**
 * Download addresses. The app-store and package links are operator settings (STORE_ANDROID_URL,
 * STORE_IPHONE_URL, STORE_IPAD_URL; docs/product/decisions.md: store links are configuration); the pages read
 * them from their loaders and leave out a store that is not set (ADR 103).
 */
export const CHROME_DOWNLOAD = 'https://www.google.com/chrome/';
