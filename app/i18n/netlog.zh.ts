/** Issue 27: the 'network exception' message of /api calls and the operators' client-event log (ADR 102); Chinese. */
export const netlogZh = {
  network: {
    title: '网络异常',
    text: '请求没有得到回应，请检查网络后重试。',
    retry: '重试',
    retrying: '正在重试…',
    close: '关闭',
  },
  logs: {
    title: '客户端日志',
    hint: '学生和老师的浏览器上报的事件：入会信息、设备检测、断线重连、错误、离开时的音视频时长。',
    room: '教室号',
    person: '用户 ID',
    event: '事件',
    filter: '筛选',
    clear: '清除筛选',
    time: '时间',
    details: '事件详情',
    address: '地址',
    none: '没有符合条件的日志',
    newer: '上一页',
    older: '下一页',
    page: '第 {{n}} 页',
    anyone: '访客',
  },
};
