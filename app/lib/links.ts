/**
 * Download addresses. The app-store and package links are operator settings (STORE_ANDROID_URL,
 * STORE_IPHONE_URL, STORE_IPAD_URL; docs/product/decisions.md: store links are configuration); the pages read
 * them from their loaders and show 'not available yet' for a store that is not set.
 */
export const CHROME_DOWNLOAD = 'https://www.google.com/chrome/';
