/**
 * The download pages' store list for one request (ADR 103): QR codes drawn here, on the server, as
 * data: URLs (the page policy allows data: images and no script is needed), only for a computer.
 */
import QRCode from 'qrcode';
import { isMobileDevice, parseUa } from '#app/lib/ua.ts';
import { orderedStores, STORE_QR_OPTIONS, type StoreChoices, type StoreKey } from './stores.ts';

export async function storeChoices(userAgent: string, urls: Record<StoreKey, string | null>): Promise<StoreChoices> {
  const ua = parseUa(userAgent);
  const device = isMobileDevice(ua) ? 'phone' : 'computer';
  const stores = await Promise.all(
    orderedStores(ua, urls).map(async ({ key, url }) => ({
      key,
      url,
      qr: device === 'computer' ? await QRCode.toDataURL(url, { ...STORE_QR_OPTIONS }) : null,
    })),
  );
  return { device, stores };
}
