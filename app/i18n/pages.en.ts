import type { PagesMessages } from './pages.zh.ts';

/** The download pages and the classroom's upgrade and online-service links (ADR 103); English. */
export const pagesEn: PagesMessages = {
  download: {
    titleSupported: 'Get Banshu',
    textSupported:
      'This browser can join a classroom as it is. On a computer Chrome works best; on a phone or tablet, open the link from your teacher in the browser.',
    titleUnsupported: 'This browser cannot join a classroom',
    textUnsupported: 'Please use Chrome 65 or newer, or Safari 12.1 or newer.',
    computerTitle: 'On a computer',
    computerText: 'Install Chrome 65 or newer (Windows or Mac), then open the classroom link from your teacher.',
    chromeWin: 'Download Chrome (Windows)',
    chromeMac: 'Download Chrome (Mac)',
    phoneTitle: 'On a phone or tablet',
    phoneBrowser: 'No app needed: open the classroom link from your teacher in Safari (iPhone, iPad) or Chrome (Android) and join.',
    appsScan: 'You can also install the Banshu app: scan a code with your phone camera.',
    appsTap: 'You can also install the Banshu app:',
    store: { iphone: 'iPhone', ipad: 'iPad', android: 'Android' },
    get: { iphone: 'Get the iPhone app', ipad: 'Get the iPad app', android: 'Get the Android app' },
    qrAlt: 'QR code of the {{store}} download link',
    needs: { iphone: 'Requires iOS 10.10 or newer', ipad: 'Requires iOS 10.10 or newer', android: 'Requires Android 6.0 or newer' },
    wechatTitle: 'Open this page in your browser',
    wechatStep1: 'Tap ··· in the top-right corner',
    wechatStep2: 'Choose "Open in browser"',
    wechatText: 'Apps cannot be downloaded inside WeChat. Open this page in your browser, then choose your download.',
    wechatImageAlt: 'Picture: tap ··· in the top-right corner, then choose "Open in browser" in the menu',
    wechatMenu: 'Open in browser',
  },
  room: {
    upgrade: 'Upgrade',
    service: 'Online service',
    newTab: ' (opens in a new tab, the class goes on)',
    fullTitle: 'This free classroom is full: {{n}} people',
    fullText: 'Other students cannot enter now. Upgrade to create classrooms with more seats.',
    fullAction: 'Upgrade',
    fullDismiss: 'Close the upgrade hint',
  },
};
