/** The board of a named user (`/wb/{id}/{uid}`, `/imwb/{id}/{uid}`, ADR 094); Chinese, the default language. */
export const userBoardZh = {
  phone: {
    label: '用手机发送图片',
    text: '用手机拍照或选图，直接放到你的白板上。',
    show: '显示二维码',
    hide: '收起',
    qrAlt: '手机传图二维码',
    link: '或在手机上打开这个链接：',
    failed: '暂时无法生成二维码：请先进入教室，并确认你可以在白板上书写',
    onlyDrawer: '只有能在白板上书写的人可以从手机发送图片',
  },
  view: {
    title: '白板 · 教室 {{n}}',
    readOnly: '你在观看 {{name}} 的白板',
    readOnlyAnon: '你在观看这间教室的白板',
    loading: '正在打开白板…',
    failed: '白板暂时打不开',
    retry: '重试',
    closed: '这节课已经结束',
  },
};
export type UserBoardMessages = typeof userBoardZh;
