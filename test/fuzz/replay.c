/* SPDX-License-Identifier: MIT */
/*
 * replay.c: a plain main() for the fuzz targets of test/fuzz/, so that the
 * corpus and every crash the fuzzers found are replayed by `make check`
 * with gcc, without libFuzzer.
 *
 *   NAME-replay FILE-OR-DIRECTORY...
 *
 * Runs LLVMFuzzerTestOneInput() once on each file (each file of a
 * directory, in name order) and prints how many; a crash or a sanitizer
 * report is the failure, as under libFuzzer.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (f == NULL) {
		perror(path);
		return -1;
	}
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			uint8_t *b = realloc(buf, cap);
			if (b == NULL) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = b;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	/* an exact-size copy, so that reading past the input is caught */
	uint8_t *in = malloc(len ? len : 1);
	if (in == NULL) {
		free(buf);
		return -1;
	}
	if (len)
		memcpy(in, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(in, len);
	free(in);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int replay_dir(const char *dir, int *count)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, by_name), rc = 0;

	if (n < 0) {
		perror(dir);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];

		if (ents[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir,
				 ents[i]->d_name);
			if (replay_file(path) < 0)
				rc = -1;
			else
				(*count)++;
		}
		free(ents[i]);
	}
	free(ents);
	return rc;
}

int main(int argc, char **argv)
{
	int count = 0, rc = 0;

	for (int i = 1; i < argc; i++) {
		struct stat sb;

		if (stat(argv[i], &sb) != 0) {
			perror(argv[i]);
			rc = 1;
		} else if (S_ISDIR(sb.st_mode)) {
			rc |= replay_dir(argv[i], &count) < 0;
		} else {
			rc |= replay_file(argv[i]) < 0;
			count += rc == 0;
		}
	}
	printf("%d inputs replayed\n", count);
	return rc;
}
