import { Crown } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import type { RoomInfo } from '#core/contracts/api.ts';
import type { Role } from '#core/contracts/room-events.ts';
import { RecDot } from '#app/recordings/RecordButton.tsx';
import { LiveBadge } from '#app/streaming/LiveBadge.tsx';

/**
 * Type, number and my role, in one line of the bar; 'REC' while the class is recorded and 'LIVE'
 * while it is streamed live (the creator's own record and live buttons say it, red with the time,
 * so their full bar keeps one line).
 */
export function RoomTitle({ room, role }: { room: RoomInfo; role: Role }) {
  const { t } = useTranslation();
  return (
    <div className="room-title">
      <span className="room-title__type" data-testid="room-type">
        {t(`roomType.t${room.roomType}`)}
        {room.isVIP === '1' ? (
          // In the one-row bar only the crown shows (its text stays for screen readers and as the tooltip).
          <span className="badge badge--paid" title={t('classroom.vip')}>
            <Crown size={14} aria-hidden="true" />
            <span className="badge__text">{t('classroom.vip')}</span>
          </span>
        ) : null}
      </span>
      <span className="room-title__number">
        <span className="room-title__label">{t('classroom.roomNumber')}</span> <span data-testid="room-number">{room.roomNumber}</span>
      </span>
      <span className="room-title__role" data-testid="room-role">
        {role === 'recorder' ? t('classroom.badge.recorder') : t(`role.${role}`)}
      </span>
      {room.recordState === '1' && role !== 'creator' ? <RecDot /> : null}
      {room.liveState === '1' && role !== 'creator' ? <LiveBadge /> : null}
    </div>
  );
}
