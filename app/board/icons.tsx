/** Toolbar icons, from lucide (the product's one icon set), coloured by the text colour. */
import {
  ChevronLeft,
  ChevronRight,
  ChevronsDown,
  ChevronsUp,
  Circle,
  Eraser,
  Image,
  MousePointer2,
  PaintBucket,
  Pencil,
  Redo2,
  Shapes,
  ShieldCheck,
  Smartphone,
  Trash2,
  Type,
  Undo2,
  ZoomIn,
  ZoomOut,
  type LucideIcon,
} from 'lucide-react';

const ICONS = {
  choose: MousePointer2,
  brush: Pencil,
  eraser: Eraser,
  shape: Shapes,
  text: Type,
  image: Image,
  delete: Trash2,
  phone: Smartphone,
  background: PaintBucket,
  power: ShieldCheck,
  undo: Undo2,
  redo: Redo2,
  prev: ChevronLeft,
  next: ChevronRight,
  hide: ChevronsDown,
  show: ChevronsUp,
  zoomIn: ZoomIn,
  zoomOut: ZoomOut,
  colour: Circle,
} satisfies Record<string, LucideIcon>;

export type IconName = keyof typeof ICONS;

export function Icon({ name }: { name: IconName }) {
  const Glyph = ICONS[name];
  return <Glyph className="icon" size={20} strokeWidth={1.8} aria-hidden="true" focusable="false" />;
}
