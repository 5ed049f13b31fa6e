/**
 * The browser's side of the upload rules (docs/product/03-board-courseware-billing.md §5): which files are courseware and how large
 * they may be. The server checks again by content; this only spares a pointless upload.
 */
import { COURSEWARE_MAX_BYTES, type CoursewareExtension, type DocumentType } from '#core/contracts/courseware.ts';

const DOC_EXTENSIONS = ['ppt', 'pptx', 'doc', 'docx', 'pdf'] as const;

const MIME_EXTENSION: Record<string, CoursewareExtension> = {
  'application/vnd.ms-powerpoint': 'ppt',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'pptx',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/pdf': 'pdf',
  'video/mp4': 'mp4',
};

export type FileCheck =
  { ok: true; extension: CoursewareExtension; documentType: DocumentType } | { ok: false; reason: 'type' | 'size' | 'empty' };

/** The extension of a file name, lower case ('' when none). */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/**
 * Is this file courseware? By its name's extension or by its mime type (case-insensitive, either
 * suffices, docs/product/03-board-courseware-billing.md §5); mp4 only where the room's variant allows video.
 */
export function checkCoursewareFile(file: { name: string; type: string; size: number }, allowVideo: boolean): FileCheck {
  const allowed = new Set<string>(allowVideo ? [...DOC_EXTENSIONS, 'mp4'] : DOC_EXTENSIONS);
  const byName = extensionOf(file.name);
  const byMime = MIME_EXTENSION[file.type.toLowerCase()] ?? '';
  const extension = (allowed.has(byName) ? byName : allowed.has(byMime) ? byMime : '') as CoursewareExtension | '';
  if (!extension) return { ok: false, reason: 'type' };
  if (file.size > COURSEWARE_MAX_BYTES) return { ok: false, reason: 'size' };
  if (file.size <= 0) return { ok: false, reason: 'empty' };
  return { ok: true, extension, documentType: extension === 'mp4' ? 3 : 1 };
}

/** The accept attribute of the file input. */
export function acceptAttribute(allowVideo: boolean): string {
  const names = (allowVideo ? [...DOC_EXTENSIONS, 'mp4'] : [...DOC_EXTENSIONS]).map((e) => `.${e}`);
  const mimes = Object.entries(MIME_EXTENSION)
    .filter(([, e]) => allowVideo || e !== 'mp4')
    .map(([m]) => m);
  return [...names, ...mimes].join(',');
}

/** The file name the server is told: with an extension that matches what was accepted. */
export function uploadName(name: string, extension: CoursewareExtension): string {
  const clean = name.replace(/[\\/]/g, '_').trim() || 'courseware';
  return extensionOf(clean) === extension ? clean : `${clean}.${extension}`;
}

/** 0..100, whole numbers; a total of 0 is 0. */
export function percent(done: number, total: number): number {
  if (!(total > 0) || !(done > 0)) return 0;
  return Math.max(0, Math.min(100, Math.floor((done / total) * 100)));
}

/** Bytes as B, KB or MB for the library (one decimal above KB). */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
