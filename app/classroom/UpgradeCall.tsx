import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Crown, Headset, X, type LucideIcon } from 'lucide-react';
import type { RoomInfo } from '#core/contracts/api.ts';
import { freeRoomFull } from '#core/rooms/capabilities.ts';
import { UPGRADE_PATH, useClassroomLinks } from './classroom-links.ts';
import './upgrade-call.css';

/**
 * The creator's links out of the class (docs/product/02-live-classroom.md §2, ADR 103). Both open a
 * new tab, so the class in this one goes on. The upgrade link shows only where the site takes
 * payments; the online-service link only when the operator set SERVICE_URL: never a dead link.
 */
export function UpgradeLinkItem({ onPick }: { onPick: () => void }) {
  const { t } = useTranslation();
  const { upgrade } = useClassroomLinks();
  if (!upgrade) return null;
  return (
    <NewTabItem href={UPGRADE_PATH} rel="noopener" icon={Crown} label={t('pages.room.upgrade')} testId="more-upgrade" onPick={onPick} />
  );
}

export function ServiceLinkItem({ onPick }: { onPick: () => void }) {
  const { t } = useTranslation();
  const { serviceUrl } = useClassroomLinks();
  if (!serviceUrl) return null;
  return (
    <NewTabItem
      href={serviceUrl}
      rel="noopener noreferrer"
      icon={Headset}
      label={t('pages.room.service')}
      testId="more-service"
      onPick={onPick}
    />
  );
}

/** A More-menu item that opens a new tab, saying so to screen readers. */
function NewTabItem(p: { href: string; rel: string; icon: LucideIcon; label: string; testId: string; onPick: () => void }) {
  const { t } = useTranslation();
  const Icon = p.icon;
  return (
    <li role="none">
      <a role="menuitem" href={p.href} target="_blank" rel={p.rel} onClick={p.onPick} data-testid={p.testId}>
        <Icon size={18} aria-hidden="true" />
        {p.label}
        <span className="visually-hidden">{t('pages.room.newTab')}</span>
      </a>
    </li>
  );
}

/**
 * A free mini or large class whose seats are all taken: the teacher is told, with a way to upgrade
 * (students the server turns away meanwhile see the 'full' page). A thin line in the page flow under
 * the bar, so it covers nothing; closing it hides it until the room fills again.
 */
export function UpgradeCall({ room, participants }: { room: Pick<RoomInfo, 'roomType' | 'isVIP' | 'maxMember'>; participants: number }) {
  const { t } = useTranslation();
  const { upgrade } = useClassroomLinks();
  const full = freeRoomFull(room, participants);
  // Closed for this filling of the room: once a seat frees, the next time it fills it shows again.
  const [closed, setClosed] = useState(false);
  const [wasFull, setWasFull] = useState(full);
  if (wasFull !== full) {
    setWasFull(full);
    if (!full) setClosed(false);
  }
  if (!upgrade || !full || closed) return null;
  return (
    <aside className="upgrade-call" aria-label={t('pages.room.upgrade')} data-testid="upgrade-call">
      <Crown className="upgrade-call__icon" size={20} aria-hidden="true" />
      <p className="upgrade-call__text">
        <strong>{t('pages.room.fullTitle', { n: room.maxMember })}</strong>{' '}
        <span className="upgrade-call__more">{t('pages.room.fullText')}</span>
      </p>
      <a className="btn btn--small btn--primary" href={UPGRADE_PATH} target="_blank" rel="noopener" data-testid="upgrade-call-link">
        {t('pages.room.fullAction')}
        <span className="visually-hidden">{t('pages.room.newTab')}</span>
      </a>
      <button
        type="button"
        className="icon-btn upgrade-call__close"
        onClick={() => setClosed(true)}
        aria-label={t('pages.room.fullDismiss')}
        title={t('pages.room.fullDismiss')}
        data-testid="upgrade-call-close"
      >
        <X size={18} aria-hidden="true" />
      </button>
    </aside>
  );
}
