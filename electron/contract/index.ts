export * from './api';
export * from './app';
export * from './channelLists';
export * from './channels';
export * from './client';
export * from './errors';
export * from './events';
export * from './runs';
