/**
 * The request of every /api call is its zod input schema, looked up by the call's name: the server
 * parses each body with it, and the browser's request types are inferred from it
 * (`ApiRequest<N>` in core/contracts/api.ts), so the two ends cannot drift apart. The browser
 * imports this module's type only.
 */
import type { z } from 'zod';
import * as account from '../account/account.schema.ts';
import * as rooms from '../rooms/room.schema.ts';
import * as orders from '../billing/order.schema.ts';
import * as messaging from '../messaging/messaging.schema.ts';
import * as board from '../board/board.schema.ts';
import * as courseware from '../courseware/courseware.schema.ts';
import * as recording from '../recording/recording.schema.ts';
import * as streaming from '../streaming/streaming.schema.ts';
import * as studio from '../studio/studio.schema.ts';
import type { ApiAnswers } from './api.ts';

export const apiInputs = {
  sendPhoneCode: account.sendPhoneCodeInput,
  loginUser: account.loginInput,
  logout: account.noInput,
  queryUserInfoByToken: account.tokenInput,
  getUserInfoById: account.userIdInput,
  getUserInfo: account.getUserInfoInput,
  updateUserName: account.updateUserNameInput,
  createAgoraRoom: rooms.createAgoraRoomInput,
  createRoom: rooms.createRoomInput,
  getRoomInfoByRoomNumber: rooms.roomNumberInput,
  userJoinAgoraRoom: rooms.joinInput,
  joinRoom: rooms.joinInput,
  touristJoinRoom: rooms.touristJoinInput,
  createDemo: rooms.createDemoInput,
  getConsumptionStatus: account.noInput,
  getUserVipInfo: account.noInput,
  updateRoomInfoByRoomNumber: rooms.updateRoomInfoInput,
  createObserverLink: rooms.roomNumberInput,
  createAgoraToken: rooms.mediaTokenInput,
  getMyRoomList: rooms.myRoomsInput,
  endMyRoom: rooms.roomNumberInput,
  delMyRoom: rooms.delMyRoomInput,
  getGoodsList: orders.pageInput,
  getOrderList: orders.pageInput,
  createOrder: orders.createOrderInput,
  getOrderInfo: orders.orderIdInput,
  paymentOrder: orders.paymentOrderInput,
  exchangePromoPoints: orders.createOrderInput,
  getAdminMessageList: orders.pageInput,
  createFeedbackCaptcha: messaging.feedbackInput,
  addLog: messaging.addLogInput,
  createWbToken: board.createWbTokenInput,
  getWbReview: board.wbReviewInput,
  createPhoneUploadLink: board.phoneUploadLinkInput,
  getTeachingPictureList: account.noInput,
  getRoomView: board.roomViewInput,
  getResourceType: courseware.noInput,
  checkFileHash: courseware.checkFileHashInput,
  createUpyunSign: courseware.createUpyunSignInput,
  addRoomDocument: courseware.addRoomDocumentInput,
  updateDocumentNotice: courseware.updateDocumentNoticeInput,
  closeRoomDocument: courseware.roomInput,
  getMyDocumentList: courseware.listInput,
  delUserDocument: courseware.delInput,
  analysisDocumentExisting: courseware.analysisInput,
  getDocumentDownloadUrl: courseware.downloadInput,
  getRoomCourseware: courseware.roomInput,
  startTask: recording.startTaskInput,
  stopTask: recording.stopTaskInput,
  getRoomMemberRecordState: recording.recordStateInput,
  getRecordList: recording.recordListInput,
  getRecordFileUrl: recording.recordFileUrlInput,
  delRecord: recording.recordFileInput,
  createRecordShareLink: recording.recordFileInput,
  getSharedRecord: recording.sharedRecordInput,
  startLive: streaming.startLiveInput,
  endLive: streaming.endLiveInput,
  getLiveState: streaming.liveStateInput,
  getLivePlatforms: streaming.liveStateInput,
  createUploadToken: studio.createUploadTokenInput,
  signUploadParts: studio.signUploadPartsInput,
  addlocalRecordFile: studio.addlocalRecordFileInput,
  abortUpload: studio.abortUploadInput,
} as const satisfies { [N in keyof ApiAnswers]: z.ZodType };
