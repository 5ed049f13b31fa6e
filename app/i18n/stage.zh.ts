/** The classroom stage (issue 16, ADR 088): layouts, tile tools, the board's locked badge; Chinese. */
export const stageZh = {
  layout: '视频布局',
  grid: '宫格视图',
  speaker: '主讲人视图',
  pin: '固定 {{name}}',
  unpin: '取消固定 {{name}}',
  pinned: '已固定',
  enlarge: '放大到整个舞台',
  restore: '还原大小',
  pip: '画中画',
  tileTools: '{{name}} 的视频操作',
  filmstrip: '参与者视频',
  locked: '仅可观看',
  lockedHint: '老师开放白板后即可书写',
};

export type StageMessages = typeof stageZh;
