/**
 * The app stores the download pages offer (docs/product/01-account-and-lobby.md §2, ADR 103). Store
 * addresses are operator settings (STORE_IPHONE_URL, STORE_IPAD_URL, STORE_ANDROID_URL); a store
 * without one is not shown at all, and the page says the classroom works in the phone's browser.
 */
import type { UaInfo } from '#app/lib/ua.ts';

export type StoreKey = 'iphone' | 'ipad' | 'android';
export const STORE_KEYS: readonly StoreKey[] = ['iphone', 'ipad', 'android'];

export interface StoreChoice {
  key: StoreKey;
  url: string;
  /** A data: URL of the link's QR code (computers scan with the phone), null where the link is followed directly. */
  qr: string | null;
}

/** What the download pages render: a computer scans QR codes, a phone or tablet follows links. */
export interface StoreChoices {
  device: 'computer' | 'phone';
  stores: StoreChoice[];
}

/** The QR codes' drawing: the same for every store, so a test can draw the expected one. */
export const STORE_QR_OPTIONS = { margin: 1, width: 160, errorCorrectionLevel: 'M' } as const;

/** The configured stores, this device's own first (an iPad's iPad app, an Android phone's Android app). */
export function orderedStores(
  ua: Pick<UaInfo, 'os' | 'device'>,
  urls: Record<StoreKey, string | null>,
): Array<{ key: StoreKey; url: string }> {
  const first: StoreKey | null = ua.os === 'android' ? 'android' : ua.os === 'ios' ? (ua.device === 'tablet' ? 'ipad' : 'iphone') : null;
  const keys = first ? [first, ...STORE_KEYS.filter((k) => k !== first)] : [...STORE_KEYS];
  return keys.flatMap((key) => {
    const url = urls[key];
    return url ? [{ key, url }] : [];
  });
}
