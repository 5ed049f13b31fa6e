/**
 * What an uploaded file is, from its content: PDF header, OLE2 compound file (ppt or doc by the
 * stream names of its directory), ZIP (pptx or docx by entry names of the central directory), mp4
 * (ftyp box). Reads only the bytes it needs with positional reads; never trusts the file name.
 */
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { SourceKind } from '#core/courseware/converter.ts';

export async function sniffFile(file: string): Promise<SourceKind | null> {
  const fh = await open(file, 'r');
  try {
    const { size } = await fh.stat();
    const head = await readAt(fh, 0, Math.min(size, 1024));
    if (head.length < 8) return null;
    if (head.subarray(0, 8).equals(OLE_MAGIC)) return await sniffOle(fh, size);
    if (head.readUInt32LE(0) === 0x04034b50) {
      const zip = await readZipDirectory(fh, size);
      return zip ? officeKindOfZip(zip) : null;
    }
    if (isMp4(head)) return 'mp4';
    if (isPdf(head)) return 'pdf';
    return null;
  } finally {
    await fh.close();
  }
}

async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(Math.max(0, length));
  let done = 0;
  while (done < buf.length) {
    const { bytesRead } = await fh.read(buf, done, buf.length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return buf.subarray(0, done);
}

/** '%PDF-' within the first KiB (readers accept a little junk before it). */
function isPdf(head: Buffer): boolean {
  return head.indexOf('%PDF-', 0, 'latin1') >= 0;
}

const MP4_BRANDS = new Set([
  'isom',
  'iso2',
  'iso3',
  'iso4',
  'iso5',
  'iso6',
  'mp41',
  'mp42',
  'avc1',
  'M4V ',
  'M4VP',
  'mmp4',
  'MSNV',
  'dash',
]);

/** An ISO base media file whose brands say mp4 (not a HEIF/AVIF picture, not QuickTime). */
function isMp4(head: Buffer): boolean {
  if (head.toString('latin1', 4, 8) !== 'ftyp') return false;
  const boxSize = head.readUInt32BE(0);
  if (boxSize < 16 || boxSize > head.length) return false;
  const major = head.toString('latin1', 8, 12);
  if (MP4_BRANDS.has(major)) return true;
  if (['heic', 'heix', 'mif1', 'msf1', 'avif', 'avis', 'qt  '].includes(major)) return false;
  for (let at = 16; at + 4 <= boxSize; at += 4) if (MP4_BRANDS.has(head.toString('latin1', at, at + 4))) return true;
  return false;
}

// ---- ZIP (Office Open XML) ----

export interface ZipEntry {
  name: string;
  compressed: number;
  uncompressed: number;
}

/** The largest central directory we read (a real pptx has a few hundred entries, ~50 KiB). */
const MAX_CENTRAL_DIRECTORY = 8 * 1024 * 1024;

/** Entries of a zip's central directory, or null when it is not a readable zip. */
export async function readZipDirectory(fh: FileHandle, size: number): Promise<ZipEntry[] | null> {
  const tailLength = Math.min(size, 22 + 0xffff);
  const tail = await readAt(fh, size - tailLength, tailLength);
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return null;
  let count = tail.readUInt16LE(eocd + 10);
  let cdSize = tail.readUInt32LE(eocd + 12);
  let cdOffset = tail.readUInt32LE(eocd + 16);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    // zip64: the locator sits just before the end record and points at the zip64 end record.
    if (eocd < 20 || tail.readUInt32LE(eocd - 20) !== 0x07064b50) return null;
    const recordAt = Number(tail.readBigUInt64LE(eocd - 20 + 8));
    const record = await readAt(fh, recordAt, 56);
    if (record.length < 56 || record.readUInt32LE(0) !== 0x06064b50) return null;
    count = Number(record.readBigUInt64LE(32));
    cdSize = Number(record.readBigUInt64LE(40));
    cdOffset = Number(record.readBigUInt64LE(48));
  }
  if (cdSize > MAX_CENTRAL_DIRECTORY || cdOffset + cdSize > size) return null;
  const cd = await readAt(fh, cdOffset, cdSize);
  const entries: ZipEntry[] = [];
  let at = 0;
  while (at + 46 <= cd.length && entries.length < count) {
    if (cd.readUInt32LE(at) !== 0x02014b50) return null;
    let compressed = cd.readUInt32LE(at + 20);
    let uncompressed = cd.readUInt32LE(at + 24);
    const nameLength = cd.readUInt16LE(at + 28);
    const extraLength = cd.readUInt16LE(at + 30);
    const commentLength = cd.readUInt16LE(at + 32);
    const nameEnd = at + 46 + nameLength;
    if (nameEnd + extraLength > cd.length) return null;
    const name = cd.toString('utf8', at + 46, nameEnd);
    if (uncompressed === 0xffffffff || compressed === 0xffffffff) {
      // zip64 extended information: the 64-bit sizes in the order of the fields that overflowed.
      for (let x = nameEnd; x + 4 <= nameEnd + extraLength;) {
        const id = cd.readUInt16LE(x);
        const len = cd.readUInt16LE(x + 2);
        if (id === 0x0001) {
          let f = x + 4;
          if (uncompressed === 0xffffffff && f + 8 <= x + 4 + len) {
            uncompressed = Number(cd.readBigUInt64LE(f));
            f += 8;
          }
          if (compressed === 0xffffffff && f + 8 <= x + 4 + len) compressed = Number(cd.readBigUInt64LE(f));
          break;
        }
        x += 4 + len;
      }
    }
    entries.push({ name, compressed, uncompressed });
    at = nameEnd + extraLength + commentLength;
  }
  return entries.length === count ? entries : null;
}

function officeKindOfZip(entries: ZipEntry[]): SourceKind | null {
  const names = new Set(entries.map((e) => e.name));
  if (!names.has('[Content_Types].xml')) return null;
  if (names.has('ppt/presentation.xml')) return 'pptx';
  if (names.has('word/document.xml')) return 'docx';
  return null;
}

// ---- OLE2 compound file (legacy .ppt / .doc) ----

const OLE_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const END_OF_CHAIN = 0xfffffffe;
/** Bounds on what we walk, so a crafted file cannot make us loop or read much. */
const MAX_DIRECTORY_SECTORS = 4096;
const MAX_DIFAT_SECTORS = 1024;

async function sniffOle(fh: FileHandle, size: number): Promise<SourceKind | null> {
  const header = await readAt(fh, 0, 512);
  if (header.length < 512) return null;
  const shift = header.readUInt16LE(30);
  if (shift !== 9 && shift !== 12) return null;
  const sectorSize = 1 << shift;
  const perSector = sectorSize / 4;
  const sectorAt = (n: number) => (n + 1) * sectorSize;

  // The FAT sector list: 109 entries in the header, then the DIFAT chain.
  const fatSectors: number[] = [];
  for (let i = 0; i < 109; i++) fatSectors.push(header.readUInt32LE(76 + i * 4));
  let difat = header.readUInt32LE(68);
  for (let n = 0; difat < END_OF_CHAIN - 2 && n < MAX_DIFAT_SECTORS; n++) {
    const block = await readAt(fh, sectorAt(difat), sectorSize);
    if (block.length < sectorSize) return null;
    for (let i = 0; i < perSector - 1; i++) fatSectors.push(block.readUInt32LE(i * 4));
    difat = block.readUInt32LE(sectorSize - 4);
  }
  const nextSector = async (n: number): Promise<number> => {
    const fatSector = fatSectors[Math.floor(n / perSector)];
    if (fatSector === undefined || fatSector >= END_OF_CHAIN - 2) return END_OF_CHAIN;
    const entry = await readAt(fh, sectorAt(fatSector) + (n % perSector) * 4, 4);
    return entry.length === 4 ? entry.readUInt32LE(0) : END_OF_CHAIN;
  };

  let sector = header.readUInt32LE(48);
  const seen = new Set<number>();
  let word = false;
  for (let n = 0; sector < END_OF_CHAIN - 2 && n < MAX_DIRECTORY_SECTORS && !seen.has(sector); n++) {
    seen.add(sector);
    if (sectorAt(sector) + sectorSize > size) return null;
    const block = await readAt(fh, sectorAt(sector), sectorSize);
    for (let e = 0; e + 128 <= block.length; e += 128) {
      const type = block[e + 66];
      const nameBytes = block.readUInt16LE(e + 64);
      if (type !== 2 || nameBytes < 2 || nameBytes > 64) continue;
      const name = block.toString('utf16le', e, e + nameBytes - 2);
      if (name === 'PowerPoint Document') return 'ppt';
      if (name === 'WordDocument') word = true;
    }
    sector = await nextSector(sector);
  }
  return word ? 'doc' : null;
}
