import { describe, expect, it } from 'vitest';
import { remoteSdp } from './rtc.ts';

describe('remoteSdp', () => {
  it("takes the generation off a browser's candidates and leaves every other line as it is", () => {
    const sdp = [
      'v=0',
      'a=ice-ufrag:Ab1c',
      'a=candidate:2999745851 1 udp 2122260223 127.0.0.1 54321 typ host generation 0 network-id 1',
      'a=candidate:1 1 udp 2122260223 127.0.0.1 54322 typ host generation 3',
      'a=candidate:2 1 udp 2122260223 127.0.0.1 54323 typ host',
      'a=x-note generation 5',
      '',
    ].join('\r\n');
    expect(remoteSdp(sdp).split('\r\n')).toEqual([
      'v=0',
      'a=ice-ufrag:Ab1c',
      'a=candidate:2999745851 1 udp 2122260223 127.0.0.1 54321 typ host network-id 1',
      'a=candidate:1 1 udp 2122260223 127.0.0.1 54322 typ host',
      'a=candidate:2 1 udp 2122260223 127.0.0.1 54323 typ host',
      'a=x-note generation 5',
      '',
    ]);
  });
});
