import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import type { JoinAnswer } from '#core/contracts/api.ts';
import { useConfirm } from '#app/components/Dialog.tsx';
import { LoadingOverlay } from '#app/components/LoadingOverlay.tsx';
import { usePhoneLayout } from '#app/lib/use-phone-layout.ts';
import { toast } from '#app/lib/toast.ts';
import { ChatPanel } from './ChatPanel.tsx';
import { LeaveDialog } from './LeaveDialog.tsx';
import { MembersPanel } from './MembersPanel.tsx';
import { HandButton, OnStageBanner, StageInvitation, StagePanel, StageStrip } from './StageHands.tsx';
import { ObserverHeader } from './ObserverHeader.tsx';
import { ReconnectOverlay } from './ReconnectOverlay.tsx';
import { EMPTY_STAGE, layoutClass, NO_LIVE } from './roomState.ts';
import { SidePanel } from './SidePanel.tsx';
import { MemberBar, TopBar } from './TopBar.tsx';
import { UpgradeCall } from './UpgradeCall.tsx';
import { ClassClock } from './ClassModeBadge.tsx';
import { offeredControls } from './media/controls.ts';
import { useRoomChannel } from './useRoomChannel.ts';
import { ViewArea } from './ViewArea.tsx';
import { shownView } from './views.ts';
import { BoardView } from '#app/board/BoardView.tsx';
import { CoursewarePanel } from '#app/courseware/CoursewarePanel.tsx';
import { useClassroomMedia } from './media/ClassroomMedia.tsx';
import { useMediaMinutes } from './useMediaMinutes.ts';
import { useClassToolsRoom } from './tools/ClassToolsRoom.tsx';
import { useGroupsRoom, useGroupsView } from './groups/GroupsRoom.tsx';
import { placementOf } from './groups/groups-pure.ts';
// The phone layout (ADR 091), after every stylesheet of the room so its .room--h5 rules win.
import './phone.css';

export const EXIT_DELAY_MS = 200;

export interface LiveRoomProps {
  answer: JoinAnswer;
  roomNumber: string;
  inviteUrl: string;
}

/** The classroom screen on a live channel: bar by role, the stage, the side panel, the dialogs. */
export function LiveRoom({ answer, roomNumber, inviteUrl }: LiveRoomProps) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const confirm = useConfirm();
  const { status, state, reconnect, actions, courseware, tools, groups } = useRoomChannel({ answer, roomNumber });
  const [trialUsed, setTrialUsed] = useState(false);
  const phone = usePhoneLayout();

  const role = state?.you.role ?? answer.role;
  const isCreator = role === 'creator';
  const isObserver = role === 'observer' || role === 'recorder';
  const room = state?.roomInfo ?? answer.roomInfo;
  // The class mode is room state held by the server (ADR 099); what each button offers follows the same rule as the server.
  const mode = room.mode ?? 'discuss';
  const myId = state?.you.userId ?? answer.userIdForNumber;
  const members = state?.members ?? [];
  // The stage and hands (ADR 112): on stage counts as invited for every capability.
  const stage = state?.stage ?? EMPTY_STAGE;
  const onStageMe = !isCreator && stage.onStage.some((s) => s.userId === myId);
  const invitedMe = !isCreator && stage.invited.find((s) => s.userId === myId);
  const handUp = stage.hands.some((h) => h.userId === myId);
  const others = members.filter((m) => m.userId !== myId).length;
  // Breakout groups (ADR 118): a student in a group sends in it as if on stage (the media node keeps it there).
  const groupsState = useGroupsView(groups).state;
  const inGroupMe = !isCreator && placementOf(groupsState, myId, false).place > 0;
  const av = useClassroomMedia({
    answer,
    roomNumber,
    // The join answer already seated us: media starts beside the room channel, not after it.
    active: status !== 'closed' && status !== 'gone',
    myId,
    creatorId: room.createUser,
    isCreator,
    roomType: room.roomType,
    onMic: onStageMe || inGroupMe,
    showState: room.showState,
    teacherOnline: state?.teacherOnline ?? true,
    members,
    onView: (showState) => void actions.setView(showState),
    offered: offeredControls({
      roomType: room.roomType,
      role,
      isVip: room.isVIP === '1',
      mode,
      onStage: onStageMe || inGroupMe,
      trialUsed: trialUsed || (room.trialEndsAt ?? 0) > 0,
    }),
  });
  useMediaMinutes(roomNumber, av.media); // audio and video minutes logged on leaving (ADR 102)
  const breakout = useGroupsRoom({
    store: groups,
    role,
    myId,
    members,
    room,
    roomNumber,
    wbtoken: answer.wbtoken,
    levels: av.media.levels,
    disabled: status !== 'live',
    patch: actions.patch,
    setView: actions.setView,
  });
  // The class tools (ADR 114): the teacher's menu (with the groups' item), the cards running beside the class, the reward animation.
  const classTools = useClassToolsRoom({
    store: tools,
    role,
    myId,
    members,
    disabled: status !== 'live',
    ...(breakout.menuItem ? { extraItems: [breakout.menuItem] } : {}),
  });
  // The members list of everyone shows this person's network as the SFU grades it (one source with the tiles).
  const myNetwork = av.media.quality[myId] ?? 0;
  const { reportNetwork } = actions;
  useEffect(() => reportNetwork(myNetwork), [myNetwork, reportNetwork, status]);

  const exit = async () => {
    await actions.leave();
    // The creator goes to My classrooms (docs/product/01 §6); a member or visitor to the left page, with rejoin and home (ADR 098).
    const after = isCreator ? '/profile' : `/left/${roomNumber}`;
    setTimeout(() => void navigate(after), EXIT_DELAY_MS);
  };
  // Leave (ADR 090): the teacher chooses between leaving and ending the class for everyone; others confirm.
  const [leaving, setLeaving] = useState(false);
  const askLeave = async () => {
    if (isCreator) {
      setLeaving(true);
      return;
    }
    const ok = await confirm({
      title: t('chrome.leave.title'),
      message: t('chrome.leave.memberText'),
      confirmText: t('chrome.leave.confirmLeave'),
    });
    if (ok) await exit();
  };
  const endClass = async () => {
    const ok = await confirm({
      title: t('chrome.endClass.title'),
      message: t('chrome.endClass.text'),
      confirmText: t('classroom.endClass'),
      tone: 'danger',
    });
    if (ok) await actions.endRoom();
  };
  // The trial's cap arrives as a patch (usually before the ack): say what it is once it is known.
  const maxMember = room.maxMember;
  const trialFrom = useRef<number | null>(null);
  const startTrial = async () => {
    trialFrom.current = maxMember;
    const endsAt = await actions.startTrial();
    if (endsAt === null) trialFrom.current = null;
    else setTrialUsed(true);
  };
  useEffect(() => {
    if (!trialUsed || trialFrom.current === null || maxMember === trialFrom.current) return;
    trialFrom.current = null;
    toast.success(t('classroom.trialStarted', { n: maxMember }));
  }, [trialUsed, maxMember, t]);

  const classes = ['room', layoutClass(others), phone ? 'room--h5' : '', `room--${mode}`, isObserver ? 'room--observer' : '']
    .filter(Boolean)
    .join(' ');

  if (status === 'closed') {
    return (
      <div className={classes}>
        <main id="main" className="room__failed">
          <section className="card card--narrow stack center" data-testid="room-closed">
            <h1>{t('classroom.roomClosed')}</h1>
            <p className="muted">{t('classroom.closedText')}</p>
            <Link className="btn btn--primary" to="/">
              {t('classroom.goHome')}
            </Link>
          </section>
        </main>
      </div>
    );
  }

  // The audio class's end (ADR 099): the time left for everyone, warned at 5 and 1 minutes.
  const clock =
    room.roomType === 3 && room.endsAt > 0 ? <ClassClock endsAt={room.endsAt} skew={state?.clockSkew ?? 0} warn={!isObserver} /> : null;

  return (
    <div className={classes} data-testid="classroom">
      {isObserver ? (
        <ObserverHeader
          roomNumber={room.roomNumber}
          recording={room.recordState === '1'}
          live={room.liveState === '1'}
          mode={mode}
          timeLeft={clock}
        />
      ) : isCreator ? (
        <TopBar
          room={room}
          role={role}
          inviteUrl={inviteUrl}
          mode={mode}
          onMode={(m) => void actions.setMode(m)}
          screenOffered={av.offered.screen}
          clock={clock}
          onView={(showState) => void actions.setView(showState)}
          showTrial={av.offered.trial}
          onTrial={() => void startTrial()}
          onEndClass={() => void endClass()}
          onExit={() => void askLeave()}
          disabled={status !== 'live'}
          recordSince={state?.record.since ?? null}
          onStartRecord={actions.startRecord}
          onStopRecord={actions.stopRecord}
          live={state?.live ?? NO_LIVE}
          onStartLive={actions.startLive}
          onEndLive={actions.endLive}
          loadLivePlatforms={actions.livePlatforms}
          tools={
            <>
              {breakout.menu}
              {classTools.menu}
            </>
          }
        />
      ) : (
        <MemberBar room={room} role={role} onExit={() => void askLeave()} clock={clock} />
      )}
      {isCreator ? <UpgradeCall room={room} participants={state?.participants ?? members.length} /> : null}
      <main id="main" className="room__main">
        <div className="room__stagecol">
          {breakout.banner}
          <StageStrip stage={stage} myId={myId} />
          <ViewArea
            showState={room.showState}
            members={breakout.together(members)}
            myId={myId}
            stageIds={stage.onStage.map((s) => s.userId)}
            forceView={breakout.boardPage !== null ? 'wb' : shownView(room.roomType, room.showState)}
            board={
              answer.wbtoken ? (
                <BoardView
                  roomNumber={roomNumber}
                  myId={myId}
                  role={role}
                  room={room}
                  wbtoken={answer.wbtoken}
                  phone={phone}
                  onPatch={actions.patch}
                  groupPage={breakout.boardPage}
                  groupClear={breakout.placement.leader}
                />
              ) : null
            }
            courseware={
              answer.wbtoken ? (
                <CoursewarePanel
                  roomNumber={roomNumber}
                  myId={myId}
                  role={role}
                  room={room}
                  wbtoken={answer.wbtoken}
                  phone={phone}
                  channel={courseware}
                  status={status}
                  clockSkew={state?.clockSkew ?? 0}
                  onPatch={actions.patch}
                />
              ) : null
            }
            tile={av.tile}
            extraTiles={av.extraTiles}
            screen={av.screen}
            focus={av.focus}
          />
          {av.controls}
          {(role === 'member' || role === 'tourist') && !onStageMe && !invitedMe && !inGroupMe ? (
            <HandButton
              raised={handUp}
              disabled={status !== 'live'}
              onToggle={() => void (handUp ? actions.lowerHand() : actions.raiseHand())}
            />
          ) : null}
        </div>
        {av.audio}
        {breakout.panel}
        {classTools.dock}
        <SidePanel
          memberCount={members.length}
          chat={
            <ChatPanel
              messages={breakout.chat(state?.messages ?? [])}
              myId={myId}
              readOnly={isObserver}
              disabled={status !== 'live'}
              onSend={actions.sendChat}
            />
          }
          members={
            <MembersPanel
              members={members}
              myId={myId}
              teacherOnline={state?.teacherOnline ?? true}
              isCreator={isCreator}
              stage={stage}
              stagePanel={
                isCreator ? (
                  <StagePanel
                    stage={stage}
                    clockSkew={state?.clockSkew ?? 0}
                    disabled={status !== 'live'}
                    onBringUp={(userId) => void actions.inviteStage(userId)}
                    onTakeDown={(userId) => void actions.stageDown(userId)}
                    onLowerHand={(userId) => void actions.lowerHand(userId)}
                    onAllDown={() => void actions.stageAllDown()}
                    onCarousel={(seconds) => void actions.setCarousel(seconds)}
                  />
                ) : null
              }
              quality={av.media.quality}
              clockSkew={state?.clockSkew ?? 0}
              levels={av.media.levels}
              silentMics={av.silentMics}
              onBringUp={(userId) => void actions.inviteStage(userId)}
              onTakeDown={(userId) => void actions.stageDown(userId)}
              onKick={(userId) => void actions.kick(userId)}
              trophies={classTools.rewards}
              onReward={classTools.openReward}
            />
          }
        />
      </main>
      {av.overlay}
      {classTools.layer}
      {leaving ? (
        <LeaveDialog
          onClose={() => setLeaving(false)}
          onLeave={() => {
            setLeaving(false);
            void exit();
          }}
          onEndForAll={() => {
            setLeaving(false);
            void actions.endRoom();
          }}
        />
      ) : null}
      {onStageMe ? <OnStageBanner video={av.offered.camera} onStepDown={() => void actions.stageDown(myId)} /> : null}
      {invitedMe ? <StageInvitation key={invitedMe.since} onAnswer={(agree) => void actions.answerStage(agree)} /> : null}
      {status === 'offline' && !isObserver ? <ReconnectOverlay reconnect={reconnect} onTryNow={actions.reconnectNow} /> : null}
      {status === 'connecting' && !state ? <LoadingOverlay label={t('classroom.connecting')} /> : null}
    </div>
  );
}
