/** How the studio's save screen shows an upload and names a download (pure, tested without a page). */
import type { StudioMediaType } from '#core/contracts/studio.ts';
import { downloadFileName } from '#core/contracts/recording.ts';
import type { UploadProgress } from './engine/types.ts';

/** Percent of the take the store holds, 0 to 100; 100 only once the upload is done (joining takes a moment). */
export function uploadPercent(p: UploadProgress | null): number {
  if (!p) return 0;
  if (p.phase === 'done') return 100;
  if (!(p.totalBytes > 0)) return 0;
  return Math.max(0, Math.min(99, Math.floor((p.sentBytes / p.totalBytes) * 100)));
}

/** The downloaded file's name: what the teacher typed, ending in the container's extension. */
export function downloadName(name: string, mediaType: StudioMediaType): string {
  return downloadFileName(name, mediaType === 'video/mp4' ? 'mp4' : 'webm');
}
