import { useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** Tab 1 chat, tab 2 members with the count (docs/product/02-live-classroom.md §2), as an ARIA tab list (arrow keys move). */
export function SidePanel({ memberCount, chat, members }: { memberCount: number; chat: ReactNode; members: ReactNode }) {
  const { t } = useTranslation();
  const [tab, setTab] = useState<'chat' | 'members'>('chat');
  const refs = { chat: useRef<HTMLButtonElement>(null), members: useRef<HTMLButtonElement>(null) };
  const tabs = [
    { key: 'chat' as const, label: t('classroom.chat.tab') },
    { key: 'members' as const, label: t('classroom.members.tab', { n: memberCount }) },
  ];
  const onKey = (event: KeyboardEvent) => {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    const next = tab === 'chat' ? 'members' : 'chat';
    setTab(next);
    refs[next].current?.focus();
  };
  return (
    <aside className="side" aria-label={t('classroom.side')}>
      <div className="side__tabs" role="tablist" onKeyDown={onKey}>
        {tabs.map((x) => (
          <button
            key={x.key}
            ref={refs[x.key]}
            type="button"
            role="tab"
            id={`side-tab-${x.key}`}
            aria-selected={tab === x.key}
            aria-controls={`side-panel-${x.key}`}
            tabIndex={tab === x.key ? 0 : -1}
            className="side__tab"
            onClick={() => setTab(x.key)}
          >
            {x.label}
          </button>
        ))}
      </div>
      <div id="side-panel-chat" role="tabpanel" aria-labelledby="side-tab-chat" className="side__panel" hidden={tab !== 'chat'}>
        {chat}
      </div>
      <div id="side-panel-members" role="tabpanel" aria-labelledby="side-tab-members" className="side__panel" hidden={tab !== 'members'}>
        {members}
      </div>
    </aside>
  );
}
