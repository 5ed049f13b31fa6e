/**
 * The teaching pictures (shape stencils) of the whiteboard: our own SVGs in server/static/stencils,
 * served at /stencils/{id}.svg. `subjectId` 2 math, 3 physics, 4 chemistry (docs/product/03-board-courseware-billing.md §3); `stname`
 * is the group name shown in the shape panel's tab.
 */
export interface Stencil {
  id: string;
  subjectId: 2 | 3 | 4;
  stname: string;
  name: string;
  nameEn: string;
}

export const STENCIL_PATH = '/stencils';

export const STENCILS: readonly Stencil[] = [
  { id: 'math-axes', subjectId: 2, stname: '坐标与数轴', name: '平面直角坐标系', nameEn: 'Coordinate plane' },
  { id: 'math-number-line', subjectId: 2, stname: '坐标与数轴', name: '数轴', nameEn: 'Number line' },
  { id: 'math-grid', subjectId: 2, stname: '坐标与数轴', name: '方格纸', nameEn: 'Square grid' },
  { id: 'math-cube', subjectId: 2, stname: '立体图形', name: '正方体', nameEn: 'Cube' },
  { id: 'math-pyramid', subjectId: 2, stname: '立体图形', name: '三棱锥', nameEn: 'Triangular pyramid' },
  { id: 'math-cylinder', subjectId: 2, stname: '立体图形', name: '圆柱', nameEn: 'Cylinder' },
  { id: 'math-cone', subjectId: 2, stname: '立体图形', name: '圆锥', nameEn: 'Cone' },
  { id: 'math-sphere', subjectId: 2, stname: '立体图形', name: '球', nameEn: 'Sphere' },
  { id: 'physics-battery', subjectId: 3, stname: '电路元件', name: '电池', nameEn: 'Battery' },
  { id: 'physics-resistor', subjectId: 3, stname: '电路元件', name: '电阻', nameEn: 'Resistor' },
  { id: 'physics-bulb', subjectId: 3, stname: '电路元件', name: '灯泡', nameEn: 'Light bulb' },
  { id: 'physics-switch', subjectId: 3, stname: '电路元件', name: '开关', nameEn: 'Switch' },
  { id: 'physics-ammeter', subjectId: 3, stname: '电路元件', name: '电流表', nameEn: 'Ammeter' },
  { id: 'physics-voltmeter', subjectId: 3, stname: '电路元件', name: '电压表', nameEn: 'Voltmeter' },
  { id: 'physics-convex-lens', subjectId: 3, stname: '光学与力学', name: '凸透镜', nameEn: 'Convex lens' },
  { id: 'physics-concave-lens', subjectId: 3, stname: '光学与力学', name: '凹透镜', nameEn: 'Concave lens' },
  { id: 'physics-spring', subjectId: 3, stname: '光学与力学', name: '弹簧', nameEn: 'Spring' },
  { id: 'physics-pulley', subjectId: 3, stname: '光学与力学', name: '滑轮', nameEn: 'Pulley' },
  { id: 'chemistry-beaker', subjectId: 4, stname: '实验仪器', name: '烧杯', nameEn: 'Beaker' },
  { id: 'chemistry-conical-flask', subjectId: 4, stname: '实验仪器', name: '锥形瓶', nameEn: 'Conical flask' },
  { id: 'chemistry-round-flask', subjectId: 4, stname: '实验仪器', name: '圆底烧瓶', nameEn: 'Round-bottom flask' },
  { id: 'chemistry-test-tube', subjectId: 4, stname: '实验仪器', name: '试管', nameEn: 'Test tube' },
  { id: 'chemistry-graduated-cylinder', subjectId: 4, stname: '实验仪器', name: '量筒', nameEn: 'Graduated cylinder' },
  { id: 'chemistry-burner', subjectId: 4, stname: '实验仪器', name: '酒精灯', nameEn: 'Alcohol burner' },
  { id: 'chemistry-benzene', subjectId: 4, stname: '有机结构', name: '苯环', nameEn: 'Benzene ring' },
];

const byId = new Map(STENCILS.map((s) => [s.id, s]));

export const stencilById = (id: string): Stencil | undefined => byId.get(id);

export const stencilUrl = (id: string): string => `${STENCIL_PATH}/${id}.svg`;

/** The list as `/api/getTeachingPictureList` sends it (JSON text in `teachingPictureList`). */
export function teachingPictureList(): Array<Stencil & { imageUrl: string }> {
  return STENCILS.map((s) => ({ ...s, imageUrl: stencilUrl(s.id) }));
}
