/**
 * One rule for a camera that refuses the size asked for (docs/product/02-live-classroom.md §5 'camera
 * resolution'), shared by the classroom (640x360) and the studio (1280x720): over-constrained, or
 * a size wider than 640 that the camera cannot start at, is asked again at 640x480. A camera that
 * is busy at 640 or less is busy, not too small: that error stands.
 */
export const CAMERA_FALLBACK = { width: 640, height: 480 } as const;

const errorName = (err: unknown): string => (typeof err === 'object' && err !== null && 'name' in err ? String(err.name) : '');

/** Whether a failed camera start at `width` is worth one more try at 640x480. */
export function retrySmaller(err: unknown, width: number): boolean {
  const name = errorName(err);
  if (name === 'OverconstrainedError' || name === 'ConstraintNotSatisfiedError') return true;
  return width > CAMERA_FALLBACK.width && (name === 'NotReadableError' || name === 'TrackStartError');
}

/**
 * Opens the camera at `size`, and at 640x480 (same frame rate) when `retrySmaller` says so.
 * `open` is the caller's getUserMedia with its own constraints; `fellBack` tells which size won.
 */
export async function openCameraWithFallback<T>(
  open: (size: { width: number; height: number }) => Promise<T>,
  size: { width: number; height: number },
): Promise<{ result: T; fellBack: boolean }> {
  try {
    return { result: await open(size), fellBack: false };
  } catch (err) {
    if (!retrySmaller(err, size.width)) throw err;
    return { result: await open(CAMERA_FALLBACK), fellBack: true };
  }
}
