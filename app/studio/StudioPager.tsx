/** Page up / down with 'n / N' under the studio's stage (the whiteboard's pages, the PDF's). */
import { StudioIcon } from './icons.tsx';

export function StudioPager(props: {
  /** 1-based. */
  page: number;
  total: number;
  onPage: (page: number) => void;
  label: string;
  text: string;
  prevLabel: string;
  nextLabel: string;
  /** Test ids `${testId}-prev`, `${testId}-page`, `${testId}-next`. */
  testId: string;
}) {
  const { page, total, onPage } = props;
  return (
    <div className="studio-pager" role="group" aria-label={props.label}>
      <button
        type="button"
        className="studio-pager__btn"
        onClick={() => onPage(page - 1)}
        disabled={page <= 1}
        aria-label={props.prevLabel}
        title={props.prevLabel}
        data-testid={`${props.testId}-prev`}
      >
        <StudioIcon name="prev" size={18} />
      </button>
      <span className="studio-pager__label" data-testid={`${props.testId}-page`} aria-live="polite">
        {props.text}
      </span>
      <button
        type="button"
        className="studio-pager__btn"
        onClick={() => onPage(page + 1)}
        disabled={page >= total}
        aria-label={props.nextLabel}
        title={props.nextLabel}
        data-testid={`${props.testId}-next`}
      >
        <StudioIcon name="next" size={18} />
      </button>
    </div>
  );
}
