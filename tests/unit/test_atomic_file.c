/*
 * Unit tests for src/common/atomic_file.c: what each kind of target becomes
 * after a write. New files follow the umask, replaced files keep their
 * mode, symbolic links stay links, FIFOs and character devices are written
 * in place (never replaced), descriptors named through /proc are written
 * through, directories and sockets are refused, and an abort leaves no
 * file. Device nodes are made in the test's own directory, never /dev.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/un.h>

#include "common/atomic_file.h"
#include "test_tree.h"

static void path_in(const char *root, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", root, name);
}

static void write_through(const char *path, const char *text)
{
    struct atomic_file f;
    assert_int_equal(atomic_file_open(&f, path), 0);
    fputs(text, f.fp);
    assert_int_equal(atomic_file_commit(&f), 0);
}

static void assert_content(const char *path, const char *want)
{
    char buf[256] = "";
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    assert_true(n >= 0);
    buf[n] = '\0';
    assert_string_equal(buf, want);
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return st.st_mode & 07777;
}

/* Entries of root other than the ones named: temporary files left behind. */
static int count_entries(const char *root)
{
    DIR *d = opendir(root);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

static void test_new_file_follows_the_umask(void **state)
{
    const char *root = *state;
    char path[PATH_MAX];
    static const struct {
        mode_t umask, want;
    } cases[] = {{022, 0644}, {077, 0600}, {002, 0664}, {027, 0640}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        path_in(root, "new.json", path, sizeof path);
        unlink(path);
        mode_t old = umask(cases[i].umask);
        write_through(path, "{}\n");
        umask(old);
        assert_int_equal(mode_of(path), cases[i].want);
    }
}

static void test_replaced_file_keeps_its_mode(void **state)
{
    const char *root = *state;
    char path[PATH_MAX];
    path_in(root, "secret.json", path, sizeof path);
    write_text(root, "/secret.json", "old\n");
    assert_int_equal(chmod(path, 0600), 0);
    mode_t old = umask(022);
    write_through(path, "new\n");
    umask(old);
    assert_int_equal(mode_of(path), 0600);
    assert_content(path, "new\n");

    assert_int_equal(chmod(path, 0664), 0);
    write_through(path, "newer\n");
    assert_int_equal(mode_of(path), 0664);
    assert_int_equal(count_entries(root), 1);
}

static void test_replaced_file_keeps_its_owner_as_root(void **state)
{
    const char *root = *state;
    char path[PATH_MAX];
    if (geteuid() != 0)
        skip();
    path_in(root, "owned.json", path, sizeof path);
    write_text(root, "/owned.json", "old\n");
    assert_int_equal(chown(path, 12345, 23456), 0);
    write_through(path, "new\n");
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_uid, 12345);
    assert_int_equal(st.st_gid, 23456);
}

static void test_symlink_stays_a_link_and_its_target_is_written(void **state)
{
    const char *root = *state;
    char link[PATH_MAX], target[PATH_MAX];
    path_in(root, "latest.json", link, sizeof link);
    path_in(root, "run-1.json", target, sizeof target);
    write_text(root, "/run-1.json", "old\n");
    assert_int_equal(symlink("run-1.json", link), 0); /* relative, as ln -s makes */
    write_through(link, "new\n");
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_content(target, "new\n");

    /* a dangling link: the file it names is created */
    unlink(target);
    write_through(link, "created\n");
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_content(target, "created\n");
    assert_int_equal(count_entries(root), 2);
}

static void test_fifo_is_written_in_place(void **state)
{
    const char *root = *state;
    char path[PATH_MAX];
    path_in(root, "fifo", path, sizeof path);
    assert_int_equal(mkfifo(path, 0600), 0);
    char why[256];
    assert_int_equal(atomic_file_check(path, why, sizeof why), 0);
    int reader = open(path, O_RDONLY | O_NONBLOCK); /* so the writer's open does not wait */
    assert_true(reader >= 0);
    write_through(path, "through the fifo\n");
    char buf[64] = "";
    ssize_t n = read(reader, buf, sizeof buf - 1);
    close(reader);
    assert_int_equal(n, 17);
    assert_string_equal(buf, "through the fifo\n");
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_int_equal(count_entries(root), 1);
}

static void test_char_device_is_written_in_place(void **state)
{
    const char *root = *state;
    char path[PATH_MAX];
    if (geteuid() != 0)
        skip();
    path_in(root, "null", path, sizeof path);
    assert_int_equal(mknod(path, S_IFCHR | 0666, makedev(1, 3)), 0); /* a private /dev/null */
    char why[256];
    assert_int_equal(atomic_file_check(path, why, sizeof why), 0);
    write_through(path, "discarded\n");
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_int_equal(st.st_rdev, makedev(1, 3));
    assert_int_equal(count_entries(root), 1);
}

static void test_descriptor_named_through_proc_is_written_through(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", p[1]);
    char why[256];
    assert_int_equal(atomic_file_check(path, why, sizeof why), 0);
    write_through(path, "piped\n");
    close(p[1]);
    char buf[64] = "";
    ssize_t n = read(p[0], buf, sizeof buf - 1);
    close(p[0]);
    assert_int_equal(n, 6);
    assert_string_equal(buf, "piped\n");

    /* a descriptor open only for reading is refused up front */
    assert_int_equal(pipe(p), 0);
    snprintf(path, sizeof path, "/proc/self/fd/%d", p[0]);
    assert_int_equal(atomic_file_check(path, why, sizeof why), -1);
    assert_non_null(strstr(why, "not open for writing"));
    close(p[0]);
    close(p[1]);
}

static void test_directory_and_socket_are_refused(void **state)
{
    const char *root = *state;
    char path[PATH_MAX], why[256];
    assert_int_equal(atomic_file_check(root, why, sizeof why), -1);
    assert_string_equal(why, "is a directory");

    path_in(root, "sock", path, sizeof path);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(s >= 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path) {
        close(s);
        skip();
    }
    strcpy(addr.sun_path, path);
    assert_int_equal(bind(s, (struct sockaddr *)&addr, sizeof addr), 0);
    assert_int_equal(atomic_file_check(path, why, sizeof why), -1);
    assert_string_equal(why, "is a socket");
    struct atomic_file f;
    assert_int_equal(atomic_file_open(&f, path), -1);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    close(s);
}

static void test_abort_leaves_nothing(void **state)
{
    const char *root = *state;
    char path[PATH_MAX];
    path_in(root, "never.json", path, sizeof path);
    struct atomic_file f;
    assert_int_equal(atomic_file_open(&f, path), 0);
    fputs("half a docu", f.fp);
    atomic_file_abort(&f);
    assert_int_equal(count_entries(root), 0);

    write_text(root, "/kept.json", "old\n");
    path_in(root, "kept.json", path, sizeof path);
    assert_int_equal(atomic_file_open(&f, path), 0);
    fputs("half", f.fp);
    atomic_file_abort(&f);
    assert_content(path, "old\n");
    assert_int_equal(count_entries(root), 1);
}

/* Root passes access(W_OK) in /proc, where no file can be created: the
 * check must find out before a measurement is spent. It leaves nothing. */
static void test_directory_that_takes_no_file_is_refused_up_front(void **state)
{
    const char *root = *state;
    char why[256], path[PATH_MAX];
    assert_int_equal(atomic_file_check("/proc/jitterlab-never.json", why, sizeof why), -1);
    assert_non_null(strstr(why, "cannot create a file in /proc"));
    path_in(root, "fine.json", path, sizeof path);
    assert_int_equal(atomic_file_check(path, why, sizeof why), 0);
    assert_int_equal(count_entries(root), 0); /* the probe is gone */
}

int main(void)
{
#define TREE_TEST(t) cmocka_unit_test_setup_teardown(t, temp_tree_setup, temp_tree_teardown)
    const struct CMUnitTest tests[] = {
        TREE_TEST(test_new_file_follows_the_umask),
        TREE_TEST(test_replaced_file_keeps_its_mode),
        TREE_TEST(test_replaced_file_keeps_its_owner_as_root),
        TREE_TEST(test_symlink_stays_a_link_and_its_target_is_written),
        TREE_TEST(test_fifo_is_written_in_place),
        TREE_TEST(test_char_device_is_written_in_place),
        cmocka_unit_test(test_descriptor_named_through_proc_is_written_through),
        TREE_TEST(test_directory_and_socket_are_refused),
        TREE_TEST(test_abort_leaves_nothing),
        TREE_TEST(test_directory_that_takes_no_file_is_refused_up_front),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
