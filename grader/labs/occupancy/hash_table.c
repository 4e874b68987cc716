/*
 * occupancy-hash IN OUT: a stored table of lab 4's answers, hashed for the
 * students' copy of the kit (mk/student_kit.sh; grader/steps/
 * occupancy_digest.h): the questions as they are, each answer a digest.
 */
#include <stdio.h>

#include "../../../common/occupancy_table.h"
#include "../../steps/occupancy_digest.h"

int main(int argc, char **argv)
{
	struct occ_table t;
	char err[512];
	if (argc != 3) {
		fprintf(stderr, "usage: occupancy-hash IN OUT\n");
		return 2;
	}
	if (occ_table_load(argv[1], &t, err, sizeof err) < 0) {
		fprintf(stderr, "occupancy-hash: %s\n", err);
		return 1;
	}
	FILE *f = NULL;
	int rc = t.salt[0] || occupancy_table_hash(&t) < 0 || !(f = fopen(argv[2], "w")) ||
		 fprintf(f, "# Lab 4's answers, hashed: each row's digest checks an answer without saying it.\n") < 0 ||
		 occ_table_write(f, &t) < 0;
	if (f && fclose(f) != 0)
		rc = 1;
	if (rc)
		fprintf(stderr, "occupancy-hash: could not hash %s into %s\n", argv[1], argv[2]);
	occ_table_free(&t);
	return rc ? 1 : 0;
}
