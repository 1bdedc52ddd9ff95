/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of saakm(1) share: the verbs that live outside saakm.c,
 * and the usage and help of the verb being run (saakm.c prints both from
 * its table of verbs). Each verb takes the arguments after "saakm"
 * (argv[0] is the verb) and returns the exit status: 0 success, 1 failure,
 * 2 usage error.
 */
#ifndef SAAKM_CLI_H
#define SAAKM_CLI_H

int cmd_record(int argc, char **argv);		/* saakm_record.c */
int cmd_rec_convert(int argc, char **argv);	/* saakm_record.c */
int cmd_replay(int argc, char **argv);		/* saakm_replay.c */
int cmd_trace_json(int argc, char **argv);	/* saakm_json.c */
int cmd_rec_dump(int argc, char **argv);	/* saakm_json.c */
int cmd_new(int argc, char **argv);		/* saakm_new.c */
int cmd_load(int argc, char **argv);		/* saakm_module.c */
int cmd_unload(int argc, char **argv);		/* saakm_module.c */
int cmd_param(int argc, char **argv);		/* saakm_module.c */
int cmd_upgrade(int argc, char **argv);		/* saakm_module.c */
int cmd_stats(int argc, char **argv);		/* saakm_stats.c */
int cmd_top(int argc, char **argv);		/* saakm_stats.c */
int cmd_switch_all(int argc, char **argv);	/* saakm_switch.c */

/*
 * Report a usage error of the verb being run: "saakm: " and @fmt (if not
 * NULL), then its synopsis. Return: 2, the exit status of a usage error.
 */
int cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Report a failure to find policy @name (NULL: no name to give) with error
 * @err from libsaakm: "no policy ... is loaded", or the kernel without
 * SaaKM. Return: 1, the exit status of a failure.
 */
int cli_policy_error(const char *name, int err);

/* Print the help of the verb being run ('saakm VERB --help'). Return: 0. */
int cli_help(void);

#endif /* SAAKM_CLI_H */
