/**
 * Video courseware (docs/product/03-board-courseware-billing.md §4 video documents): the creator's player sends play, pause and seek
 * with its position, and a heartbeat every 5 s while playing; everyone else follows and jumps when
 * more than 1 s off. Where the browser blocks playback without a gesture, a 'click to play' prompt.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { VIDEO_HEARTBEAT_MS, VIDEO_RESYNC_S, type VideoControl } from '#core/contracts/courseware.ts';
import type { CoursewareChannel } from '#app/classroom/useRoomChannel.ts';

export interface VideoCoursewareProps {
  url: string;
  poster: string;
  name: string;
  isCreator: boolean;
  channel: CoursewareChannel;
  /** serverTime - Date.now(), to age a control by the time it spent on the way. */
  clockSkew: number;
  /** The creator's last control when this person arrived (a late joiner starts from it). */
  initial: VideoControl | null;
  onExpired: () => void;
}

/** A control as this page keeps it: with the local time (performance.now) it stands for. */
export interface HeldControl {
  type: VideoControl['type'];
  currentTime: number;
  heldAt: number;
}

/** At most this much ageing is believed (a clock that jumped must not send the video to its end). */
const MAX_AGE_S = 10;

/**
 * Where the creator's video is now. Live controls are aged from when they arrived here (the trip
 * takes milliseconds); the control a late joiner finds in the block is aged by the server time
 * since it was accepted.
 */
export function expectedTime(control: HeldControl, localNow: number): number {
  if (control.type === 'pause') return control.currentTime;
  return control.currentTime + Math.min(MAX_AGE_S, Math.max(0, (localNow - control.heldAt) / 1000));
}

/** The local time a control accepted at server time `at` stands for. */
export function heldAt(at: number, serverNow: number, localNow: number): number {
  const age = at > 0 ? Math.min(MAX_AGE_S * 1000, Math.max(0, serverNow - at)) : 0;
  return localNow - age;
}

export function VideoCourseware({ url, poster, name, isCreator, channel, clockSkew, initial, onExpired }: VideoCoursewareProps) {
  const { t } = useTranslation();
  const video = useRef<HTMLVideoElement>(null);
  const [blocked, setBlocked] = useState(false);
  const last = useRef<HeldControl | null>(null);
  const skewRef = useRef(clockSkew);
  // The latest clock skew for the player callbacks.
  useLayoutEffect(() => {
    skewRef.current = clockSkew;
  });

  const send = useCallback(
    (type: VideoControl['type']) => {
      const v = video.current;
      if (!v || !isCreator) return;
      void channel.request('videoControl', { type, currentTime: Math.round(v.currentTime * 1000) / 1000 }, { quiet: type === 'heartbeat' });
    },
    [channel, isCreator],
  );

  // The creator: a heartbeat every 5 s while playing.
  const [playing, setPlaying] = useState(false);
  useEffect(() => {
    if (!isCreator || !playing) return;
    const timer = setInterval(() => send('heartbeat'), VIDEO_HEARTBEAT_MS);
    return () => clearInterval(timer);
  }, [isCreator, playing, send]);

  const apply = useCallback(async () => {
    const v = video.current;
    const c = last.current;
    if (!v || !c) return;
    const want = expectedTime(c, performance.now());
    if (c.type === 'pause') {
      if (!v.paused) v.pause();
      if (Math.abs(v.currentTime - want) > 0.05) v.currentTime = want;
      return;
    }
    if (c.type === 'seek' || Math.abs(v.currentTime - want) > VIDEO_RESYNC_S) v.currentTime = want;
    if (c.type !== 'seek' && v.paused) {
      try {
        await v.play();
        setBlocked(false);
      } catch {
        // Autoplay refused: the person starts it with a click (a gesture).
        setBlocked(true);
      }
    }
  }, []);

  // A late joiner starts where the creator's last control says (once the video can seek).
  const initialRef = useRef(initial);
  useEffect(() => {
    const v = video.current;
    const first = initialRef.current;
    if (isCreator || !v || !first || last.current) return;
    last.current = {
      type: first.type,
      currentTime: first.currentTime,
      heldAt: heldAt(first.at, Date.now() + skewRef.current, performance.now()),
    };
    const start = () => void apply();
    if (v.readyState >= 1) start();
    else v.addEventListener('loadedmetadata', start, { once: true });
    return () => v.removeEventListener('loadedmetadata', start);
  }, [isCreator, apply]);

  // Everyone else: follow the creator's controls.
  useEffect(() => {
    if (isCreator) return;
    return channel.on('videoControl', (control) => {
      // 'seek' keeps the playing state; the next heartbeat or play says whether it plays.
      const prev = last.current;
      const type = control.type === 'seek' && prev && prev.type !== 'pause' ? 'play' : control.type;
      last.current = { type, currentTime: control.currentTime, heldAt: performance.now() };
      void apply();
    });
  }, [channel, isCreator, apply]);

  const clickToPlay = async () => {
    const v = video.current;
    if (!v) return;
    if (last.current) {
      const want = expectedTime(last.current, performance.now());
      v.currentTime = want;
    }
    try {
      await v.play();
      setBlocked(false);
    } catch {
      setBlocked(true);
    }
  };

  return (
    <div className="cw-video" data-testid="courseware-video">
      <video
        ref={video}
        src={url}
        poster={poster || undefined}
        controls={isCreator}
        playsInline
        preload="auto"
        aria-label={name}
        data-testid="cw-video"
        onPlay={() => {
          if (isCreator) {
            setPlaying(true);
            send('play');
          }
        }}
        onPause={() => {
          if (isCreator) {
            setPlaying(false);
            send('pause');
          }
        }}
        onSeeked={() => {
          if (isCreator) send('seek');
        }}
        onError={onExpired}
      />
      {blocked && !isCreator ? (
        <button type="button" className="cw-video__play" onClick={() => void clickToPlay()} data-testid="cw-click-to-play">
          {t('courseware.video.clickToPlay')}
        </button>
      ) : null}
    </div>
  );
}
