/**
 * The SFU under test in its own process: media-server/ alone (no database, no web role) on a
 * loopback port, signing nothing itself: the bench signs tokens with the same secret. Sends
 * `{port}` to the parent when listening.
 */
import { createServer } from 'node:http';
import { Server as SocketServer } from 'socket.io';
import { MEDIA_NAMESPACE } from '#core/contracts/media-signaling.ts';
import { createLogger } from '#core/platform/logger.ts';
import { TokenSigner } from '#core/platform/secrets.ts';
import { MediaServer } from '#media/server.ts';
import { attachSignaling } from '#media/signaling.ts';

const secret = process.env['BENCH_SECRET'] ?? 'b'.repeat(48);
const server = new MediaServer({
  signer: new TokenSigner(secret),
  rtc: { listenIp: '127.0.0.1', announcedAddress: '127.0.0.1', portRange: [42000, 43999] },
});
const http = createServer((_q, r) => r.writeHead(404).end());
const io = new SocketServer(http, { serveClient: false });
attachSignaling(io.of(MEDIA_NAMESPACE), server, createLogger('silent'), []);
http.listen(0, '127.0.0.1', () => {
  const a = http.address();
  process.send?.({ port: typeof a === 'object' && a ? a.port : 0 });
});
process.on('disconnect', () => process.exit(0));
