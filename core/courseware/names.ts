/**
 * File names of uploads: the name shown (any language, cleaned of what can mislead or break a
 * page) and the ASCII name inside the object key; types by extension (docs/product/03-board-courseware-billing.md §5).
 */
import { COURSEWARE_EXTENSIONS, type CoursewareExtension, type DocumentType } from '../contracts/courseware.ts';
import type { SourceKind } from './converter.ts';

/** Control characters, bidi overrides and isolates, zero-width characters, byte-order marks, U+FFFD. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufffd]/g;
const MAX_NAME_CHARS = 100;

export function extensionOf(name: string): CoursewareExtension | null {
  const dot = name.lastIndexOf('.');
  if (dot < 0) return null;
  const ext = name.slice(dot + 1).toLowerCase();
  return (COURSEWARE_EXTENSIONS as readonly string[]).includes(ext) ? (ext as CoursewareExtension) : null;
}

/**
 * The name as shown in the library: NFC, lone surrogates and invisible or direction-changing
 * characters removed, whitespace collapsed, at most 100 characters with the extension kept.
 * null when nothing is left before the extension or the extension is not courseware.
 */
export function displayName(raw: string): string | null {
  const clean = raw.toWellFormed().normalize('NFC').replace(INVISIBLE, '').replace(/[\\/]/g, '_').replace(/\s+/g, ' ').trim();
  const ext = extensionOf(clean);
  if (!ext) return null;
  const base = [...clean.slice(0, clean.length - ext.length - 1).trim()];
  if (base.length === 0 || base.join('').replace(/\./g, '') === '') return null;
  const kept = base
    .slice(0, MAX_NAME_CHARS - ext.length - 1)
    .join('')
    .trim();
  return `${kept}.${ext}`;
}

/** The object key's file name: ASCII letters, digits, `_` and `-` (others become `_`), lower-case extension. */
export function keyFileName(display: string, ext: CoursewareExtension): string {
  const base = display.slice(0, display.length - ext.length - 1);
  const ascii = base
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^[_-]+|[_-]+$/g, '')
    .slice(0, 80);
  return `${ascii || 'file'}.${ext}`;
}

export const documentTypeOf = (ext: CoursewareExtension): DocumentType => (ext === 'mp4' ? 3 : 1);

export const CONTENT_TYPES: Record<CoursewareExtension, string> = {
  pdf: 'application/pdf',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  mp4: 'video/mp4',
};

/** Does the content (sniffed) fit the name? A pptx saved as .ppt still is a presentation; a text file named .pptx is not. */
export function kindFitsExtension(kind: SourceKind, ext: CoursewareExtension): boolean {
  const family = (k: string) => (k === 'ppt' || k === 'pptx' ? 'slides' : k === 'doc' || k === 'docx' ? 'text' : k);
  return family(kind) === family(ext);
}
