/** The download pages and the classroom's upgrade and online-service links (ADR 103); Chinese, the default language. */
export const pagesZh = {
  download: {
    titleSupported: '下载板书',
    textSupported: '这个浏览器可以直接进入教室。在电脑上推荐使用 Chrome；手机和平板用浏览器打开老师发来的链接即可上课。',
    titleUnsupported: '当前浏览器无法进入教室',
    textUnsupported: '请使用 Chrome 65 及以上版本，或 Safari 12.1 及以上版本。',
    computerTitle: '电脑上课',
    computerText: '下载 Chrome 65 及以上版本（Windows 或 Mac），再打开老师发来的教室链接。',
    chromeWin: '下载 Chrome（Windows）',
    chromeMac: '下载 Chrome（Mac）',
    phoneTitle: '手机和平板上课',
    phoneBrowser: '不用安装应用：用 Safari（iPhone、iPad）或 Chrome（Android）打开老师发来的教室链接，就能上课。',
    appsScan: '也可以安装板书应用：用手机相机扫描二维码下载。',
    appsTap: '也可以安装板书应用：',
    store: { iphone: 'iPhone 版', ipad: 'iPad 版', android: 'Android 版' },
    get: { iphone: '下载 iPhone 版', ipad: '下载 iPad 版', android: '下载 Android 版' },
    qrAlt: '{{store}}下载链接的二维码',
    needs: { iphone: '需要 iOS 10.10 及以上版本', ipad: '需要 iOS 10.10 及以上版本', android: '需要 Android 6.0 及以上版本' },
    wechatTitle: '请在浏览器中打开',
    wechatStep1: '点击右上角的 ···',
    wechatStep2: '选择「在浏览器打开」',
    wechatText: '微信里无法下载应用。在浏览器中打开本页后，再选择要下载的版本。',
    wechatImageAlt: '示意图：点击右上角的 ··· ，在菜单中选择「在浏览器打开」',
    wechatMenu: '在浏览器打开',
  },
  room: {
    upgrade: '升级',
    service: '在线客服',
    newTab: '（在新标签页打开，课堂不会中断）',
    fullTitle: '免费教室已满：{{n}} 人',
    fullText: '其他学生现在无法进入。升级后可以创建座位更多的教室。',
    fullAction: '升级',
    fullDismiss: '关闭升级提示',
  },
};

export type PagesMessages = typeof pagesZh;
