/**
 * Courseware test helpers: real PDFs written on the spot, the converter the tests use (the real
 * one of workers/convert), and the upload as the browser does it (hash, signed PUT, registration).
 */
import { createHash } from 'node:crypto';
import type { Converter } from '#core/courseware/converter.ts';
import type { ApiData } from '#core/contracts/api.ts';
import { call, type CallResult } from './api.ts';

/** A PDF of `pages` pages with a line of text each; `portrait` gives A4 upright pages. */
export function makePdf(pages: number, opts: { portrait?: boolean; label?: string } = {}): Buffer {
  const box = opts.portrait ? '0 0 595 842' : '0 0 842 595';
  const objects: string[] = [];
  const kids: string[] = [];
  const font = 3;
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[font] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  for (let i = 0; i < pages; i++) {
    const pageId = 4 + i * 2;
    const contentId = pageId + 1;
    const text = `BT /F1 48 Tf 72 300 Td (${opts.label ?? 'Page'} ${i + 1}) Tj ET`;
    objects[pageId] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [${box}] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${contentId} 0 R >>`;
    objects[contentId] = `<< /Length ${text.length} >>\nstream\n${text}\nendstream`;
    kids.push(`${pageId} 0 R`);
  }
  objects[2] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${pages} >>`;
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(out);
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

export const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex');

/** What the browser answers to checkFileHash's challenge (ADR 069): MD5 of the nonce, then the range of its file. */
export function answerChallenge(challenge: { offset: number; length: number; nonce: string }, bytes: Uint8Array) {
  const range = bytes.subarray(challenge.offset, challenge.offset + challenge.length);
  return { nonce: challenge.nonce, rangeHash: createHash('md5').update(challenge.nonce, 'utf8').update(range).digest('hex') };
}

/** The real converter of workers/convert (LibreOffice, mupdf in worker threads, sharp, ffmpeg). */
export async function testConverter(): Promise<{ converter: Converter; real: boolean }> {
  const { createConverter } = await import('../../workers/convert/index.ts');
  return { converter: createConverter({ warm: false }), real: true };
}

/** One real converter for a whole test file, handed to each server: the servers' close leaves it running (close it once). */
export function sharedConverter(real: Converter): Converter {
  return {
    sniff: (f) => real.sniff(f),
    convertDocument: (...a) => real.convertDocument(...a),
    convertVideo: (...a) => real.convertVideo(...a),
    close: () => Promise.resolve(),
  };
}

export interface Uploaded {
  sign: CallResult<ApiData<'createUpyunSign'>>;
  put: number;
  add: CallResult<ApiData<'addRoomDocument'>>;
  hash: string;
}

/** What the browser does: hash, signed PUT straight to the store, registration. */
export async function uploadCourseware(
  baseUrl: string,
  token: string,
  bytes: Uint8Array,
  name: string,
  opts: { roomNumber?: string; documentType?: 1 | 3 } = {},
): Promise<Uploaded> {
  const hash = md5(bytes);
  const sign = await call(
    baseUrl,
    'createUpyunSign',
    { fileName: name, fileSize: bytes.byteLength, fileHash: hash, ...(opts.roomNumber ? { roomNumber: opts.roomNumber } : {}) },
    { token },
  );
  // A refusal carries no data (null): the caller checks the code before it reads any.
  if (sign.code !== '0') return { sign, put: 0, add: sign as CallResult<never>, hash };
  const res = await fetch(sign.data.uploadUrl, {
    method: 'PUT',
    headers: sign.data.headers,
    body: new Uint8Array(bytes),
  });
  await res.arrayBuffer();
  const add = await call(
    baseUrl,
    'addRoomDocument',
    {
      documentSource: sign.data.saveName,
      documentName: name,
      fileHash: hash,
      documentType: opts.documentType ?? 1,
      ...(opts.roomNumber ? { roomNumber: opts.roomNumber } : {}),
    },
    { token },
  );
  return { sign, put: res.status, add, hash };
}
