/**
 * The class tools in the classroom (ADR 114), in the three places they show: the teacher's Tools
 * menu with its dialogs (the top bar), the cards of the tools running (beside the class) and the
 * reward's animation (over it, holding no control).
 */
import { useState, type ReactNode } from 'react';
import type { Member, Role } from '#core/contracts/room-events.ts';
import { PollDialog, QuizDialog, RewardDialog, TimerDialog } from './ToolDialogs.tsx';
import { ToolsDock } from './ToolsDock.tsx';
import { RewardBurst } from './RewardBurst.tsx';
import { ToolsMenu, type ToolKey, type ToolsMenuExtra } from './ToolsMenu.tsx';
import type { ToolsStore } from './tools-store.ts';
import { useToolsTestHook, useToolsView } from './useClassTools.ts';

export interface ClassToolsRoomOptions {
  store: ToolsStore;
  role: Role;
  myId: string;
  members: Member[];
  /** The room channel is not live: the buttons wait. */
  disabled: boolean;
  /** Items other parts add to the teacher's menu (the breakout groups). */
  extraItems?: ToolsMenuExtra[];
}

export interface ClassToolsRoom {
  /** The teacher's Tools menu and its dialogs (null for everyone else). */
  menu: ReactNode;
  /** The cards of the tools running now (null when none runs). */
  dock: ReactNode;
  /** The reward animation. */
  layer: ReactNode;
  /** Trophies per user id (the members list shows them). */
  rewards: Record<string, number>;
  /** The teacher's reward dialog, for one student first (the members list's button). */
  openReward: (userId?: string) => void;
}

export function useClassToolsRoom({ store, role, myId, members, disabled, extraItems }: ClassToolsRoomOptions): ClassToolsRoom {
  const view = useToolsView(store);
  useToolsTestHook(store);
  const [open, setOpen] = useState<{ tool: ToolKey; userId?: string } | null>(null);
  const close = () => setOpen(null);
  const { actions } = store;
  const isTeacher = role === 'creator';
  const pick = (tool: ToolKey) => {
    // The buzzer and the random pick act at once; the others ask first.
    if (tool === 'buzzer') void actions.buzzerOpen();
    else if (tool === 'pick') void actions.pickRandom();
    else setOpen({ tool });
  };
  const menu = isTeacher ? (
    <>
      <ToolsMenu onPick={pick} disabled={disabled} {...(extraItems ? { extra: extraItems } : {})} />
      {open?.tool === 'quiz' ? <QuizDialog onClose={close} actions={actions} /> : null}
      {open?.tool === 'poll' ? <PollDialog onClose={close} actions={actions} /> : null}
      {open?.tool === 'timer' ? <TimerDialog onClose={close} actions={actions} /> : null}
      {open?.tool === 'reward' ? (
        <RewardDialog
          onClose={close}
          actions={actions}
          members={members.filter((m) => m.online)}
          rewards={view.tools.rewards}
          quiz={view.tools.quiz}
          {...(open.userId ? { preselect: open.userId } : {})}
        />
      ) : null}
    </>
  ) : null;
  return {
    menu,
    dock: <ToolsDock store={store} role={role} myId={myId} members={members} disabled={disabled} />,
    layer: <RewardBurst store={store} myId={myId} />,
    rewards: view.tools.rewards,
    openReward: (userId) => setOpen(userId ? { tool: 'reward', userId } : { tool: 'reward' }),
  };
}
