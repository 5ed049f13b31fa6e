/** The slide view of a room (`/ppt/{id}`, `/ppt/{id}/{uid}`, ADR 093); Chinese, the default language. */
export const slideViewZh = {
  pageTitle: '课件 · 教室 {{n}}',
  title: '{{name}}的教室',
  titleNoName: '教室 {{n}}',
  viewOnly: '仅观看',
  viewOnlyHint: '你正在观看这个教室的课件，只有老师可以书写和翻页',
  loading: '正在打开课件…',
  failed: '暂时无法打开课件',
  retry: '重试',
  closed: '本节课已结束',
  page: '第 {{n}} / {{total}} 页',
  boardPage: '白板 第 {{n}} 页',
  noSlides: '老师还没有打开课件，正在显示白板',
  status: {
    live: '已连接',
    connecting: '正在连接',
    offline: '连接中断，正在重连',
    failed: '连接失败',
  },
  tools: {
    label: '书写工具',
    pen: '画笔',
    eraser: '橡皮擦',
    prev: '上一页',
    next: '下一页',
  },
  turnFailed: '翻页失败',
  backToClass: '进入教室',
};

export type SlideViewMessages = typeof slideViewZh;
