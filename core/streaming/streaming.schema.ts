/** Input schemas of the live streaming /api calls (core/contracts/streaming.ts); the service checks the rules. */
import { z } from 'zod';

const roomNumber = z.string().max(64);

/**
 * pushPlatform: one of the operator's platform names, or 'custom'. pushStreamUrl: the stream key
 * for a named platform, the full rtmp(s):// address for 'custom'. Both are checked by the service,
 * which answers with the live codes (38001-38006) rather than a bare 'illegal parameters'.
 */
export const startLiveInput = z.object({
  roomNumber,
  pushPlatform: z.string().max(64),
  pushStreamUrl: z.string().max(1024),
});
export const endLiveInput = z.object({ roomNumber });
export const liveStateInput = z.object({ roomNumber });
