/** A TCP port on 127.0.0.1 that is free now (the kernel's pick), for a server a test starts. */
import { createServer } from 'node:net';

export async function freeLoopbackPort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        if (port > 0) resolve(port);
        else reject(new Error('could not pick a free port'));
      });
    });
  });
}
