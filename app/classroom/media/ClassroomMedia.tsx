/**
 * Puts the media into the classroom screen: the hook, the tiles for the view area, the screen
 * view, the controls, the audio players and the permissions-help screen, so LiveRoom only places
 * them.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { toast } from '#app/lib/toast.ts';
import type { JoinAnswer } from '#core/contracts/api.ts';
import type { Layer } from '#core/contracts/media-signaling.ts';
import type { Member } from '#core/contracts/room-events.ts';
import type { OfferedControls } from './controls.ts';
import { DeviceIssueView, PlaybackPrompt, SilentMicNotice } from './HealthViews.tsx';
import { DeviceSettings, MediaControls, MediaTile, RemoteAudio, ScreenView, TeacherAbsentTile } from './MediaStage.tsx';
import { playback } from './playback.ts';
import { NO_SPEAKING, nextSpeaking, speakingIds, SPEAKING_TICK_MS } from './speaking.ts';
import { useMedia, type MediaState } from './useMedia.ts';
import { sfuNetworkQuality } from '../roomState.ts';

/** docs/product/02-live-classroom.md §9 video profiles by remote count: 0-1 360p, 2 240p, more 180p; the speaker tile is always high. */
export function layerFor(remoteCount: number, speaker: boolean): Layer {
  if (speaker || remoteCount <= 1) return 'h';
  return remoteCount === 2 ? 'm' : 'l';
}

export interface ClassroomMediaInput {
  answer: JoinAnswer;
  roomNumber: string;
  active: boolean;
  myId: string;
  creatorId: string;
  isCreator: boolean;
  roomType: number;
  onMic: boolean;
  showState: string;
  teacherOnline: boolean;
  members: Member[];
  onView: (showState: string) => void;
  /** What the capability rule offers this person now (./controls.ts, ADR 099). */
  offered: OfferedControls;
}

export interface ClassroomMedia {
  media: MediaState;
  tile: (member: Member, me: boolean) => ReactNode;
  extraTiles: ReactNode;
  screen: ReactNode;
  controls: ReactNode;
  audio: ReactNode;
  overlay: ReactNode;
  /** The pinned person and the active speaker (the speaker layout puts them first). */
  focus: { pinned: string; active: string };
  /** What the capability rule offers (the input's, passed on for the bar). */
  offered: OfferedControls;
  /** People whose microphone reaches the node with no packets (the members list marks them; ADR 101). */
  silentMics: string[];
}

/** The teacher hears once per silence that another person's microphone sends nothing (their own has the notice). */
function useTellTeacher(silent: MediaState['silent'], isCreator: boolean, myId: string, members: Member[]): void {
  const { t } = useTranslation();
  const told = useRef(new Set<string>());
  useEffect(() => {
    if (!isCreator) return;
    for (const [trackId, s] of Object.entries(silent)) {
      if (told.current.has(trackId) || s.source !== 'mic' || s.userId === myId) continue;
      told.current.add(trackId);
      const name = members.find((m) => m.userId === s.userId)?.name ?? s.userId;
      toast.error(t('mediaHealth.silent.teacher', { name }));
    }
    for (const trackId of told.current) if (!(trackId in silent)) told.current.delete(trackId);
  }, [silent, isCreator, myId, members, t]);
}

export function useClassroomMedia(i: ClassroomMediaInput): ClassroomMedia {
  const media = useMedia({
    answer: i.answer,
    roomNumber: i.roomNumber,
    active: i.active,
    onMic: i.onMic,
    showState: i.showState,
    onView: i.onView,
  });
  const [speaker, setSpeaker] = useState('');
  const [choosing, setChoosing] = useState(false);
  useEffect(() => playback.setRoom(i.roomNumber), [i.roomNumber]);
  useTellTeacher(media.silent, i.isCreator, i.myId, i.members);
  const silentMics = [
    ...new Set(
      Object.values(media.silent)
        .filter((s) => s.source === 'mic')
        .map((s) => s.userId),
    ),
  ];
  const micSilentMe = silentMics.includes(i.myId) && media.local.micOn;
  // Who speaks: the node's last levels report stands until the next one; every 300 ms it is folded
  // into a smoothed level with a hold (speaking.ts), while anyone is heard or still outlined.
  const [speaking, setSpeaking] = useState(NO_SPEAKING);
  const levelsRef = useRef(media.levels);
  useEffect(() => {
    levelsRef.current = media.levels;
  }, [media.levels]);
  const heard = Object.keys(media.levels).length > 0 || Object.keys(speaking.lastLoud).length > 0;
  useEffect(() => {
    if (!heard) return;
    const timer = setInterval(() => setSpeaking((s) => nextSpeaking(s, levelsRef.current, Date.now())), SPEAKING_TICK_MS);
    return () => clearInterval(timer);
  }, [heard]);
  const speakingNow = speakingIds(speaking);
  // Who sends video now: a camera subscribed after the microphone gets its layer too.
  const remoteKey = Object.values(media.people)
    .filter((p) => p.video)
    .map((p) => p.userId)
    .sort()
    .join(',');
  const { setLayer } = media.actions;

  useEffect(() => {
    const ids = remoteKey ? remoteKey.split(',') : [];
    const remotes = Object.keys(media.people).length;
    for (const id of ids) setLayer(id, layerFor(remotes, id === speaker));
  }, [remoteKey, speaker, setLayer, media.people]);

  const tile = (member: Member, me: boolean) => (
    <MediaTile
      member={member}
      me={me}
      person={media.people[member.userId] ?? null}
      localVideo={media.local.video}
      camOn={media.local.camOn}
      micOn={media.local.micOn}
      speaking={speakingNow.has(member.userId)}
      quality={sfuNetworkQuality(media.quality, member)}
      pinned={speaker === member.userId}
      onPin={() => setSpeaker((s) => (s === member.userId ? '' : member.userId))}
    />
  );
  return {
    media,
    tile,
    extraTiles: i.teacherOnline ? null : <TeacherAbsentTile />,
    screen: <ScreenView media={media} isCreator={i.isCreator} creatorId={i.creatorId} canScreen={i.offered.screen} />,
    controls: <MediaControls media={media} offered={i.offered} />,
    audio: <RemoteAudio people={media.people} speakerId={media.speakerId} />,
    overlay: (
      <>
        <PlaybackPrompt />
        {micSilentMe ? <SilentMicNotice deviceLabel={media.local.micLabel} onRetry={() => media.actions.retryDevices('mic')} /> : null}
        {media.issue && !choosing ? (
          <DeviceIssueView
            issue={media.issue}
            onRetry={() => media.actions.retryDevices()}
            onClose={media.actions.dismissIssue}
            onChooseDevice={() => setChoosing(true)}
          />
        ) : null}
        {choosing ? (
          <DeviceSettings
            media={media}
            onClose={() => {
              setChoosing(false);
              media.actions.dismissIssue();
            }}
          />
        ) : null}
      </>
    ),
    focus: { pinned: speaker, active: speaking.active },
    offered: i.offered,
    silentMics,
  };
}
