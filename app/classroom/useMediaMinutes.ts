import { useEffect, useRef } from 'react';
import { beaconClientLog, flushClientLog, logClientEvent, toMinutes } from '#app/lib/client-log.ts';
import type { MediaSnapshot } from './media/media-client.ts';

/**
 * The audio and video minutes of docs/product/02-live-classroom.md §7 ('leaving reports audio and
 * video minutes with one decimal'; ADR 102): the time this person's microphone and camera were on
 * and sent while the media was live, logged as `media_minutes` when the room is left (unmount or
 * the page going away).
 */
export function useMediaMinutes(roomNumber: string, media: Pick<MediaSnapshot, 'status' | 'rights' | 'local'>): void {
  const sending = {
    audio: media.status === 'live' && media.rights.includes('mic') && media.local.micOn,
    video: media.status === 'live' && media.rights.includes('camera') && media.local.camOn && media.local.video !== null,
  };
  const totals = useRef({ audio: 0, video: 0, audioSince: null as number | null, videoSince: null as number | null, told: false });

  useEffect(() => {
    const t = totals.current;
    const now = Date.now();
    if (sending.audio && t.audioSince === null) t.audioSince = now;
    if (!sending.audio && t.audioSince !== null) {
      t.audio += now - t.audioSince;
      t.audioSince = null;
    }
    if (sending.video && t.videoSince === null) t.videoSince = now;
    if (!sending.video && t.videoSince !== null) {
      t.video += now - t.videoSince;
      t.videoSince = null;
    }
  }, [sending.audio, sending.video]);

  useEffect(() => {
    const t = totals.current;
    t.told = false;
    const tell = () => {
      if (t.told) return;
      t.told = true;
      const now = Date.now();
      const audio = t.audio + (t.audioSince === null ? 0 : now - t.audioSince);
      const video = t.video + (t.videoSince === null ? 0 : now - t.videoSince);
      logClientEvent('media_minutes', roomNumber, { audioMinutes: toMinutes(audio), videoMinutes: toMinutes(video) });
    };
    const onHide = () => {
      tell();
      beaconClientLog();
    };
    window.addEventListener('pagehide', onHide);
    return () => {
      window.removeEventListener('pagehide', onHide);
      tell();
      void flushClientLog();
    };
  }, [roomNumber]);
}
