/** Whether ffmpeg holds its RTP port is read from the kernel's table, never by binding it ourselves. */
import { createSocket } from 'node:dgram';
import { describe, expect, it } from 'vitest';
import { freeRtpPort, udpPortBound } from './decoder.ts';

describe('udpPortBound', () => {
  it('sees a socket bound on loopback or on every address, and not once it is closed', async () => {
    const port = await freeRtpPort();
    expect(await udpPortBound(port)).toBe(false);
    for (const address of ['127.0.0.1', undefined]) {
      const socket = createSocket('udp4');
      await new Promise<void>((resolve) => socket.bind(port, address, resolve));
      expect(await udpPortBound(port)).toBe(true);
      await new Promise<void>((resolve) => socket.close(resolve));
      expect(await udpPortBound(port)).toBe(false);
    }
  });
});
