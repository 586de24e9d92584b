import type { Command } from './main.ts';

const notYet = async () => {
  process.stderr.write('not implemented yet\n');
  return 1;
};

export const accountCreate: Command = {
  summary: 'Create an account with an unrestricted first user',
  usage: 'account create',
  options: {},
  run: notYet,
};
export const userCreate: Command = { summary: 'Create a user in an account', usage: 'user create', options: {}, run: notYet };
export const tokenCreate: Command = {
  summary: 'Create a personal access token and print it',
  usage: 'token create',
  options: {},
  run: notYet,
};
