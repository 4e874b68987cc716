/*
 * A kit in a private folder: a clone under /root, or anywhere a 0700 folder
 * above it keeps other users out. The sandbox's leased uid could not reach
 * the kit's build there, and bubblewrap, run as that uid, would refuse every
 * sandbox over a path it cannot find.
 *
 * In the child, while it is still root and before it takes the leased uid:
 * a mount namespace of its own, in which the topmost private folder above
 * the kit is an empty tmpfs that anyone may enter, holding only the way down
 * to the kit, which is bound there at its own path. The child reaches the
 * kit by the path the grader uses, and nothing else of that folder.
 */
#ifndef GRADER_PRIVATE_KIT_H
#define GRADER_PRIVATE_KIT_H

#include <stddef.h>

/* 1 when a folder above the kit keeps uid out. */
int private_kit(long uid);

/* In a child that is root: the view above, when private_kit(uid). Returns
 * 0 (done, or nothing to do), or -1 with why. */
int private_kit_expose(long uid, char *err, size_t errlen);

#endif
