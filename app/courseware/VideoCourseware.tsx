/**
 * Video courseware (spec 03 §4 video documents): the creator's player sends play, pause and seek
 * with its position, and a heartbeat every 5 s while playing; everyone else follows and jumps when
 * more than 1 s off. Where the browser blocks playback without a gesture, a 'click to play' prompt.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
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

/** Where the creator's video is now, from a control that was accepted at `at` (server time). */
export function expectedTime(control: Pick<VideoControl, 'type' | 'currentTime' | 'at'>, serverNow: number): number {
  if (control.type === 'pause') return control.currentTime;
  const aged = control.at > 0 ? Math.max(0, (serverNow - control.at) / 1000) : 0;
  return control.currentTime + Math.min(aged, 10);
}

export function VideoCourseware({ url, poster, name, isCreator, channel, clockSkew, initial, onExpired }: VideoCoursewareProps) {
  const { t } = useTranslation();
  const video = useRef<HTMLVideoElement>(null);
  const [blocked, setBlocked] = useState(false);
  const last = useRef<(VideoControl & { by: string }) | null>(null);
  /** The viewer's own changes to the element, so its events are not mistaken for the user's. */
  const following = useRef(false);
  const skewRef = useRef(clockSkew);
  skewRef.current = clockSkew;

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
    const want = expectedTime(c, Date.now() + skewRef.current);
    following.current = true;
    try {
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
    } finally {
      following.current = false;
    }
  }, []);

  // A late joiner starts where the creator's last control says (once the video can seek).
  const initialRef = useRef(initial);
  useEffect(() => {
    const v = video.current;
    const first = initialRef.current;
    if (isCreator || !v || !first || last.current) return;
    last.current = { ...first, by: '' };
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
      last.current = control.type === 'seek' && prev && prev.type !== 'pause' ? { ...control, type: 'play' } : control;
      void apply();
    });
  }, [channel, isCreator, apply]);

  const clickToPlay = async () => {
    const v = video.current;
    if (!v) return;
    if (last.current) {
      const want = expectedTime(last.current, Date.now() + skewRef.current);
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
