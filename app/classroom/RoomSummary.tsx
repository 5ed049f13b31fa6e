import { useTranslation } from 'react-i18next';
import type { JoinAnswer } from '#core/contracts/api.ts';

/** The facts a member sees on entering: number, type, role, people. */
export function RoomSummary({ answer }: { answer: JoinAnswer }) {
  const { t } = useTranslation();
  const room = answer.roomInfo;
  return (
    <dl className="facts facts--inline">
      <div className="facts__row">
        <dt>{t('classroom.roomNumber')}</dt>
        <dd data-testid="room-number">{room.roomNumber}</dd>
      </div>
      <div className="facts__row">
        <dt>{t('classroom.type')}</dt>
        <dd data-testid="room-type">
          {t(`roomType.t${room.roomType}`)}
          {room.isVIP === '1' ? <span className="badge badge--paid">{t('classroom.vip')}</span> : null}
        </dd>
      </div>
      <div className="facts__row">
        <dt>{t('classroom.yourRole')}</dt>
        <dd data-testid="room-role">{t(`role.${answer.role}`)}</dd>
      </div>
      <div className="facts__row">
        <dt>{t('classroom.people')}</dt>
        <dd>{t('classroom.peopleValue', { n: room.participants, max: room.maxMember })}</dd>
      </div>
    </dl>
  );
}
