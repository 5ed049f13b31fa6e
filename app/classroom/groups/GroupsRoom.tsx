/**
 * The breakout groups in the classroom (issue 31, ADR 118), in the places they show: the teacher's
 * "Groups" button and split dialog (the top bar), the teacher's overview while groups run (the side
 * column) and, after them, the groups' boards offered as pages; a student's banner, picker and
 * warnings (above the class); and what the rest of the classroom follows from one's place: the
 * board page shown, the chat lines, the tiles and whether the media client may send.
 */
import { useEffect, useMemo, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { UsersRound } from 'lucide-react';
import type { RoomInfo } from '#core/contracts/api.ts';
import type { ChatMessage, Member, Role, RoomPatch } from '#core/contracts/room-events.ts';
import { readExtend, writeExtend } from '#core/board/draw/tools.ts';
import { useBoardSync } from '#app/board/useBoardSync.ts';
import { shownName } from '#app/lib/display-name.ts';
import { toast } from '#app/lib/toast.ts';
import { GroupsDialog } from './GroupsDialog.tsx';
import { GroupsOverview, type GroupsOverviewProps } from './GroupsOverview.tsx';
import { chatOfPlace, groupLabel, groupsOn, placementOf, type Placement } from './groups-pure.ts';
import type { GroupsStore, GroupsView } from './groups-store.ts';
import { GroupBanner, LastBoards } from './StudentGroups.tsx';
import type { ToolsMenuExtra } from '../tools/ToolsMenu.tsx';
import './groups.css';

export interface GroupsRoomOptions {
  store: GroupsStore;
  role: Role;
  myId: string;
  members: Member[];
  room: Pick<RoomInfo, 'roomExtend' | 'showState' | 'roomType'>;
  roomNumber: string;
  wbtoken: string;
  levels: Record<string, number>;
  disabled: boolean;
  patch: (patch: RoomPatch) => Promise<boolean>;
  setView: (showState: string) => Promise<boolean>;
}

export interface GroupsRoom {
  view: GroupsView;
  /** Groups are running (or counting down to the return). */
  on: boolean;
  placement: Placement;
  /** The board page to show instead of the room's (one's group's page), or null for the room's own. */
  boardPage: number | null;
  /** The teacher's "Groups" item of the Tools menu (null for everyone else). */
  menuItem: ToolsMenuExtra | null;
  /** The teacher's split dialog while open (null otherwise). */
  menu: ReactNode;
  /** Above the class: a student's banner, picker, warnings; the teacher's own place while visiting. */
  banner: ReactNode;
  /** The side column: the teacher's overview while groups run, the groups' boards after them. */
  panel: ReactNode;
  /** The chat lines of one's place, with the teacher's broadcasts as lines. */
  chat: (messages: ChatMessage[]) => ChatMessage[];
  /** The people one shares a space with (the tiles of the class). */
  together: (members: Member[]) => Member[];
}

const isStudent = (role: Role) => role === 'member' || role === 'tourist';

export function useGroupsView(store: GroupsStore): GroupsView {
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
}

/** The teacher's overview with its own board connection for the thumbnails (mounted only while groups run). */
function OverviewWithBoard(props: Omit<GroupsOverviewProps, 'board'> & { roomNumber: string; myId: string; wbtoken: string }) {
  const { roomNumber, myId, wbtoken, ...rest } = props;
  const { store } = useBoardSync(roomNumber, myId, wbtoken);
  return <GroupsOverview {...rest} board={store} />;
}

export function useGroupsRoom(o: GroupsRoomOptions): GroupsRoom {
  const { t } = useTranslation();
  const view = useGroupsView(o.store);
  const { state } = view;
  const { actions } = o.store;
  const isCreator = o.role === 'creator';
  const student = isStudent(o.role);
  const on = groupsOn(state);
  const placement = placementOf(state, o.myId, isCreator);
  const [open, setOpen] = useState(false);
  const names = useMemo(() => new Map(o.members.map((m) => [m.userId, shownName(m.name, t)])), [o.members, t]);
  const students = useMemo(() => o.members.filter((m) => isStudent(m.role)), [o.members]);

  // What a person is told as it happens: back in the main room, moved, the teacher's messages, help asked.
  const before = useRef({ place: placement.place, on, broadcasts: view.broadcasts.length, seq: view.last?.seq ?? 0 });
  useEffect(() => {
    const prev = before.current;
    const last = view.last;
    const fresh = last && last.seq !== prev.seq ? last : null;
    if (!isCreator && student) {
      if (prev.on && !on && prev.place > 0) toast.success(t('groups.student.back'));
      else if (fresh?.outcome === 'moved' && fresh.userIds.includes(o.myId) && on) {
        toast.info(
          placement.group ? t('groups.student.movedTo', { group: groupLabel(placement.group, t) }) : t('groups.student.movedMain'),
        );
      }
      if (fresh?.outcome === 'joined' && placement.place > 0 && state.teacherIn === placement.place)
        toast.info(t('groups.student.teacherHere'));
    }
    if (isCreator && fresh?.outcome === 'help') {
      const g = state.groups.find((x) => x.members.some((m) => fresh.userIds.includes(m)));
      if (g && g.helpAt > 0) toast.info(t('groups.overview.helpToast', { group: groupLabel(g, t) }));
    }
    if (!isCreator && view.broadcasts.length > prev.broadcasts) {
      const b = view.broadcasts.at(-1);
      if (b) toast.info(t('groups.student.broadcast', { text: b.text }));
    }
    before.current = {
      place: placement.place,
      on,
      broadcasts: view.broadcasts.length,
      seq: last?.seq ?? prev.seq,
    };
  }, [view, on, placement, isCreator, student, o.myId, state, t]);

  // In the Tools menu, not a button of its own: the teacher's bar stays on one row (ADR 090).
  const menuItem: ToolsMenuExtra | null = isCreator
    ? {
        key: 'groups',
        label: t('groups.menuLabel'),
        icon: UsersRound,
        testId: 'groups-button',
        disabled: o.disabled || on,
        onSelect: () => setOpen(true),
      }
    : null;
  const menu =
    isCreator && open ? (
      <GroupsDialog
        students={students.filter((m) => m.online).map((m) => ({ userId: m.userId, name: m.name }))}
        slideShown={o.room.showState === 'ppt'}
        onStart={actions.start}
        onClose={() => setOpen(false)}
      />
    ) : null;

  const extend = readExtend(o.room.roomExtend);
  const showBoard = async (page: number) => {
    if (o.room.showState !== 'wb' && o.room.roomType !== 2) await o.setView('wb');
    await o.patch({ roomExtend: writeExtend(o.room.roomExtend, { pageIndex: page }) });
  };

  const panel = isCreator ? (
    on ? (
      <aside className="groups-side" aria-label={t('groups.overview.title')}>
        <OverviewWithBoard
          view={view}
          actions={actions}
          names={names}
          students={students.filter((m) => m.online).map((m) => m.userId)}
          levels={o.levels}
          background={extend.color}
          disabled={o.disabled}
          roomNumber={o.roomNumber}
          myId={o.myId}
          wbtoken={o.wbtoken}
        />
      </aside>
    ) : state.lastBoards.length > 0 ? (
      <aside className="groups-side groups-side--after" aria-label={t('groups.lastBoards.title')}>
        <LastBoards boards={state.lastBoards} current={extend.pageIndex} disabled={o.disabled} onShow={(p) => void showBoard(p)} />
      </aside>
    ) : null
  ) : null;

  const banner =
    on && (student || (isCreator && placement.place > 0)) ? (
      <GroupBanner
        state={state}
        placement={placement}
        myId={o.myId}
        names={names}
        offset={view.offset}
        student={student}
        disabled={o.disabled}
        onHelp={(cancel) => void actions.help(cancel)}
        onChoose={(g) => void actions.choose(g)}
      />
    ) : null;

  const place = placement.place;
  const chat = (messages: ChatMessage[]): ChatMessage[] => {
    const lines = on ? chatOfPlace(messages, place, state.startedAt) : chatOfPlace(messages, 0);
    if (!on || view.broadcasts.length === 0) return lines;
    const told: ChatMessage[] = view.broadcasts.map((b) => ({
      id: `groups-broadcast-${b.at}`,
      uid: b.by,
      name: t('groups.student.broadcastLine'),
      text: b.text,
      at: b.at,
    }));
    return [...lines, ...told].sort((a, b) => a.at - b.at);
  };

  const together = (members: Member[]): Member[] => {
    if (!on) return members;
    return members.filter(
      (m) => (m.role === 'observer' || m.role === 'recorder' ? 0 : placementOf(state, m.userId, m.role === 'creator').place) === place,
    );
  };

  return {
    view,
    on,
    placement,
    boardPage: on && placement.group ? placement.group.page : null,
    menu,
    menuItem,
    banner,
    panel,
    chat,
    together,
  };
}
