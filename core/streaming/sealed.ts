/**
 * The push address at rest (ADR 085): AES-256-GCM under a key derived from the server's secret, so
 * a copy of the database alone does not give away a teacher's stream key. Only a recorder (which
 * has the same secret) opens it, right before it pushes.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const keyOf = (secret: string) => createHash('sha256').update(`banshu live push\0${secret}`).digest();

export function seal(secret: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret), iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

/** Throws when the text was not sealed with this secret (or was changed). */
export function unseal(secret: string, sealed: string): string {
  if (!sealed.startsWith('v1.')) throw new Error('not a sealed push address');
  const raw = Buffer.from(sealed.slice(3), 'base64url');
  if (raw.length < 29) throw new Error('sealed push address too short');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(secret), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
