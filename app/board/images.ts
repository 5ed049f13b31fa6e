/**
 * Board images in the browser: check, resize (orientation corrected by createImageBitmap), and
 * upload with progress to the server's board image upload, which stores the file in the object
 * store and answers with its key and a signed URL to draw it from.
 */
import { IMAGE_COMPRESS_QUALITY, IMAGE_COMPRESS_WIDTH, scaleToWidth } from '#core/board/draw/geometry.ts';

/** The server's board image upload: the raw jpg/png body, the board token as a Bearer token. */
export const BOARD_IMAGE_UPLOAD = '/board-images';

export interface PreparedImage {
  blob: Blob;
  width: number;
  height: number;
  type: string;
}

/** Decodes with the EXIF orientation applied, so width and height are the upright ones. */
async function decode(file: Blob): Promise<ImageBitmap> {
  return createImageBitmap(file, { imageOrientation: 'from-image' });
}

/** Redraws an image at most `maxWidth` wide as JPEG of `quality`. */
export async function resizeImage(file: Blob, maxWidth: number, quality: number): Promise<PreparedImage> {
  const bitmap = await decode(file);
  const size = scaleToWidth(bitmap.width, bitmap.height, maxWidth);
  const canvas = document.createElement('canvas');
  canvas.width = size.width;
  canvas.height = size.height;
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('no 2d context');
  // JPEG has no transparency: a PNG's transparent parts become white, not black.
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, size.width, size.height);
  ctx.drawImage(bitmap, 0, 0, size.width, size.height);
  bitmap.close();
  const blob = await new Promise<Blob>((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('encode failed'))), 'image/jpeg', quality),
  );
  return { blob, width: size.width, height: size.height, type: 'image/jpeg' };
}

/** A board image as picked: sent as is when small, else compressed (docs/product/03-board-courseware-billing.md §5). */
export async function prepareBoardImage(file: File, compress: boolean): Promise<PreparedImage> {
  if (compress) return resizeImage(file, IMAGE_COMPRESS_WIDTH, IMAGE_COMPRESS_QUALITY);
  const bitmap = await decode(file);
  const out = { blob: file as Blob, width: bitmap.width, height: bitmap.height, type: file.type || 'image/jpeg' };
  bitmap.close();
  return out;
}

export interface UploadAnswer {
  /** Object key to store in the board item. */
  key: string;
  /** Signed URL to draw it from now. */
  url: string;
  /** The whiteboard page the room is on as the upload arrived (roomExtend pageIndex; ADR 034). */
  page?: number;
}

/** Uploads with XMLHttpRequest (fetch has no upload progress). Resolves with the envelope. */
export function uploadBoardImage(
  image: PreparedImage,
  options: { token: string; onProgress?: (fraction: number) => void; signal?: AbortSignal; lang?: string },
): Promise<{ code: string; msg: string; data: UploadAnswer | null }> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', BOARD_IMAGE_UPLOAD);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.setRequestHeader('content-type', image.type);
    xhr.setRequestHeader('authorization', `Bearer ${options.token}`);
    if (options.lang) xhr.setRequestHeader('lang', options.lang);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) options.onProgress?.(e.loaded / e.total);
    };
    xhr.onload = () => {
      try {
        const body = JSON.parse(xhr.responseText) as { code: unknown; msg?: string; data?: unknown };
        const data = body.data as Partial<UploadAnswer> | null | undefined;
        const key = typeof data?.key === 'string' ? data.key : null;
        resolve({
          code: String(body.code),
          msg: body.msg ?? '',
          data: key
            ? { key, url: typeof data?.url === 'string' ? data.url : '', ...(Number.isInteger(data?.page) ? { page: data!.page! } : {}) }
            : null,
        });
      } catch {
        resolve({ code: 'network', msg: '', data: null });
      }
    };
    xhr.onerror = () => resolve({ code: 'network', msg: '', data: null });
    options.signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(image.blob);
  });
}
