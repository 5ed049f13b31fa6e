/**
 * Download addresses. The app-store and package links are operator settings in the end
 * (DECISIONS.md: store links are configuration); until the settings carry them these stay
 * placeholders that point at our own mobile page.
 */
export const CHROME_DOWNLOAD = 'https://www.google.com/chrome/';
export const STORE_LINKS = {
  android: '/phonedown#android',
  iphone: '/h5down#ios',
  ipad: '/h5down#ipad',
} as const;
