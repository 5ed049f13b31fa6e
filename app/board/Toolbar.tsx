/**
 * The whiteboard toolbar (docs/product/03-board-courseware-billing.md §2.2, §9): colour and width, select, brush, eraser with its menu,
 * image, shapes with their groups, text, delete, phone photo, background colour, permission,
 * undo and redo, pages, and a hide toggle. Buttons carry names for screen readers and keyboard
 * users; popups close on Escape and on a press outside.
 */
import { useCallback, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { BOARD_LAST_PAGE, BRUSH_COLOURS, BRUSH_WIDTHS } from '#core/contracts/board.ts';
import { useDismiss } from '#app/lib/use-dismiss.ts';
import { Icon, type IconName } from './icons.tsx';
import type { Stencil, StencilGroup } from './net.ts';
import { CSS_COLOURS } from '#core/board/draw/renderer.ts';
import { BASIC_SHAPES, toolbarWidth, type ShapePick, type ToolState } from '#core/board/draw/tools.ts';

export interface ToolbarProps {
  tools: ToolState;
  onTools: (tools: ToolState) => void;
  isCreator: boolean;
  phone: boolean;
  hidden: boolean;
  onHidden: (hidden: boolean) => void;
  stencils: Stencil[] | null;
  onOpenShapes: () => void;
  onImage: (file: File) => void;
  uploading: boolean;
  onDelete: () => void;
  onClearAll: () => void;
  onPhone: () => void;
  onBackground: () => void;
  onPower: () => void;
  onUndo: () => void;
  onRedo: () => void;
  canUndo: boolean;
  canRedo: boolean;
  pageIndex: number;
  onPage: (pageIndex: number) => void;
  /** On a courseware slide: colour, select, brush, eraser, text, delete, undo and redo (docs/product/03-board-courseware-billing.md §2.1). */
  slide?: boolean;
  /** A board kept in this browser (the studio): no image upload or phone photo, the basic shapes only (stencils come from the server). */
  local?: boolean;
  /** 'Clear all' is offered (off on a breakout group's page for all but its leader and the teacher, ADR 118). */
  canClear?: boolean;
}

type Popup = 'colour' | 'eraser' | 'shape' | null;
const GROUPS: readonly StencilGroup[] = ['basic', 'math', 'physics', 'chemistry'];

function ToolButton({
  buttonRef,
  ...props
}: {
  icon: IconName;
  label: string;
  onClick: () => void;
  pressed?: boolean;
  disabled?: boolean;
  popup?: boolean;
  expanded?: boolean;
  testId?: string;
  buttonRef?: React.Ref<HTMLButtonElement>;
  children?: ReactNode;
}) {
  return (
    <button
      ref={buttonRef}
      type="button"
      className={`board-tool${props.pressed ? ' board-tool--on' : ''}`}
      aria-label={props.label}
      title={props.label}
      aria-pressed={props.popup ? undefined : props.pressed}
      aria-haspopup={props.popup ? 'menu' : undefined}
      aria-expanded={props.popup ? props.expanded : undefined}
      disabled={props.disabled}
      onClick={props.onClick}
      data-testid={props.testId}
    >
      <Icon name={props.icon} />
      {props.children}
    </button>
  );
}

export function Toolbar(props: ToolbarProps) {
  const { t } = useTranslation();
  const { tools, onTools } = props;
  const [popup, setPopup] = useState<Popup>(null);
  const [tab, setTab] = useState<StencilGroup>('basic');
  const close = useCallback(() => setPopup(null), []);
  const box = useRef<HTMLDivElement>(null);
  const colourBtn = useRef<HTMLButtonElement>(null);
  const eraserBtn = useRef<HTMLButtonElement>(null);
  const shapeBtn = useRef<HTMLButtonElement>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const popupButton = popup === 'colour' ? colourBtn : popup === 'eraser' ? eraserBtn : shapeBtn;
  useDismiss(popup !== null, close, box, popupButton);

  const toggle = (p: Exclude<Popup, null>) => setPopup((cur) => (cur === p ? null : p));
  const pickShape = (pick: ShapePick) => {
    onTools({ ...tools, tool: 'shape', pick });
    setPopup(null);
  };
  const width = toolbarWidth(props.isCreator, props.phone);

  if (props.hidden) {
    return (
      <div className="board-toolbar board-toolbar--hidden">
        <ToolButton icon="show" label={t('board.show')} onClick={() => props.onHidden(false)} testId="board-show" />
      </div>
    );
  }

  const pickedStencil = tools.pick.kind === 'stencil' ? tools.pick.stencilId : '';
  const pickedShape = tools.pick.kind === 'shape' ? tools.pick.shape : '';
  return (
    <div className="board-toolbar" ref={box} role="toolbar" aria-label={t('board.toolbar')} style={{ width }} data-testid="board-toolbar">
      <div className="board-toolbar__row">
        <ToolButton
          icon="colour"
          label={t('board.colour')}
          onClick={() => toggle('colour')}
          popup
          expanded={popup === 'colour'}
          buttonRef={colourBtn}
          testId="board-colour"
        >
          <span className="board-tool__swatch" style={{ background: CSS_COLOURS[tools.color] }} aria-hidden="true" />
        </ToolButton>
        <ToolButton
          icon="choose"
          label={t('board.tools.choose')}
          pressed={tools.tool === 'choose'}
          onClick={() => onTools({ ...tools, tool: 'choose' })}
          testId="tool-choose"
        />
        <ToolButton
          icon="brush"
          label={t('board.tools.brush')}
          pressed={tools.tool === 'brush'}
          onClick={() => onTools({ ...tools, tool: 'brush' })}
          testId="tool-brush"
        />
        <ToolButton
          icon="eraser"
          label={t('board.tools.eraser')}
          pressed={tools.tool === 'eraser'}
          onClick={() => toggle('eraser')}
          popup
          expanded={popup === 'eraser'}
          buttonRef={eraserBtn}
          testId="tool-eraser"
        />
        {props.slide || props.local ? null : (
          <ToolButton
            icon="image"
            label={t('board.tools.image')}
            onClick={() => fileRef.current?.click()}
            disabled={props.uploading}
            testId="tool-image"
          />
        )}
        <input
          ref={fileRef}
          type="file"
          accept="image/jpeg,image/png,.jpg,.jpeg,.png"
          hidden
          data-testid="board-file"
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            e.currentTarget.value = '';
            if (file) props.onImage(file);
          }}
        />
        {props.slide ? null : (
          <ToolButton
            icon="shape"
            label={t('board.tools.shape')}
            pressed={tools.tool === 'shape'}
            onClick={() => {
              props.onOpenShapes();
              toggle('shape');
            }}
            popup
            expanded={popup === 'shape'}
            buttonRef={shapeBtn}
            testId="tool-shape"
          />
        )}
        {props.phone ? null : (
          <ToolButton
            icon="text"
            label={t('board.tools.text')}
            pressed={tools.tool === 'text'}
            onClick={() => onTools({ ...tools, tool: 'text' })}
            testId="tool-text"
          />
        )}
        <ToolButton icon="delete" label={t('board.tools.delete')} onClick={props.onDelete} testId="tool-delete" />
        {props.phone || props.slide || props.local ? null : (
          <ToolButton icon="phone" label={t('board.tools.phone')} onClick={props.onPhone} testId="tool-phone" />
        )}
        <ToolButton icon="undo" label={t('board.tools.undo')} onClick={props.onUndo} disabled={!props.canUndo} testId="tool-undo" />
        <ToolButton icon="redo" label={t('board.tools.redo')} onClick={props.onRedo} disabled={!props.canRedo} testId="tool-redo" />
        {props.isCreator && !props.slide ? (
          <>
            <ToolButton icon="background" label={t('board.tools.background')} onClick={props.onBackground} testId="tool-background" />
            <ToolButton icon="power" label={t('board.tools.power')} onClick={props.onPower} testId="tool-power" />
            <ToolButton
              icon="prev"
              label={t('board.tools.prev')}
              onClick={() => props.onPage(props.pageIndex - 1)}
              disabled={props.pageIndex <= 0}
              testId="page-prev"
            />
            <span className="board-toolbar__page" data-testid="page-label">
              {props.pageIndex + 1}/{BOARD_LAST_PAGE + 1}
            </span>
            <ToolButton
              icon="next"
              label={t('board.tools.next')}
              onClick={() => props.onPage(props.pageIndex + 1)}
              disabled={props.pageIndex >= BOARD_LAST_PAGE}
              testId="page-next"
            />
          </>
        ) : null}
        <ToolButton icon="hide" label={t('board.hide')} onClick={() => props.onHidden(true)} testId="board-hide" />
      </div>

      {popup === 'colour' ? (
        <div className="board-popup" role="menu" aria-label={t('board.colour')}>
          <div className="board-popup__swatches">
            {BRUSH_COLOURS.map((c) => (
              <button
                key={c}
                type="button"
                role="menuitemradio"
                aria-checked={tools.color === c}
                className={`board-swatch${tools.color === c ? ' board-swatch--on' : ''}`}
                style={{ background: CSS_COLOURS[c] }}
                aria-label={t(`board.colours.${c}`)}
                title={t(`board.colours.${c}`)}
                onClick={() => onTools({ ...tools, color: c })}
                data-testid={`colour-${c}`}
              />
            ))}
          </div>
          <div className="board-popup__widths">
            {BRUSH_WIDTHS.map((w) => (
              <button
                key={w}
                type="button"
                role="menuitemradio"
                aria-checked={tools.width === w}
                className={`board-width${tools.width === w ? ' board-width--on' : ''}`}
                aria-label={t('board.width', { n: w })}
                title={t('board.width', { n: w })}
                onClick={() => onTools({ ...tools, width: w })}
                data-testid={`width-${w}`}
              >
                <span style={{ height: w, background: CSS_COLOURS[tools.color] }} aria-hidden="true" />
              </button>
            ))}
          </div>
        </div>
      ) : null}

      {popup === 'eraser' ? (
        <div className="board-popup" role="menu" aria-label={t('board.tools.eraser')}>
          <button
            type="button"
            role="menuitem"
            className="board-popup__item"
            autoFocus
            onClick={() => {
              onTools({ ...tools, tool: 'eraser' });
              setPopup(null);
            }}
            data-testid="eraser-manual"
          >
            {t('board.eraserMenu.manual')}
          </button>
          {props.canClear === false ? null : (
            <button
              type="button"
              role="menuitem"
              className="board-popup__item board-popup__item--danger"
              onClick={() => {
                setPopup(null);
                props.onClearAll();
              }}
              data-testid="eraser-clear"
            >
              {t('board.eraserMenu.clearAll')}
            </button>
          )}
        </div>
      ) : null}

      {popup === 'shape' ? (
        <div className="board-popup board-popup--shapes" aria-label={t('board.shapes.title')}>
          <div role="tablist" className="board-tabs" hidden={props.local}>
            {GROUPS.map((g) => (
              <button
                key={g}
                type="button"
                role="tab"
                aria-selected={tab === g}
                className="board-tab"
                onClick={() => setTab(g)}
                data-testid={`shape-tab-${g}`}
              >
                {t(`board.shapes.tabs.${g}`)}
              </button>
            ))}
          </div>
          <div role="tabpanel" className="board-shapes">
            {tab === 'basic'
              ? BASIC_SHAPES.map((s) => (
                  <button
                    key={s}
                    type="button"
                    className={`board-shape${pickedShape === s ? ' board-shape--on' : ''}`}
                    aria-pressed={pickedShape === s}
                    onClick={() => pickShape({ kind: 'shape', shape: s })}
                    data-testid={`shape-${s}`}
                  >
                    {t(`board.shapes.${s}`)}
                  </button>
                ))
              : null}
            {tab !== 'basic' && props.stencils === null ? <p className="muted">{t('board.shapes.loading')}</p> : null}
            {tab !== 'basic' && props.stencils?.filter((s) => s.group === tab).length === 0 ? (
              <p className="muted">{t('board.shapes.empty')}</p>
            ) : null}
            {tab !== 'basic'
              ? props.stencils
                  ?.filter((s) => s.group === tab)
                  .map((s) => (
                    <button
                      key={s.id}
                      type="button"
                      className={`board-stencil${pickedStencil === s.id ? ' board-shape--on' : ''}`}
                      aria-pressed={pickedStencil === s.id}
                      title={s.name}
                      onClick={() => pickShape({ kind: 'stencil', stencilId: s.id, url: s.imageUrl, name: s.name })}
                      data-testid={`stencil-${s.id}`}
                    >
                      <img src={s.imageUrl} alt="" width={36} height={36} />
                      <span>{s.name}</span>
                    </button>
                  ))
              : null}
          </div>
        </div>
      ) : null}
    </div>
  );
}
