--TEST--
swoole_coroutine: System::readFile()/writeFile() (append, LOCK_EX, failures logged as Swoole logs them), statvfs(), and the Coroutine:: aliases with getuid()
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
$f = sys_get_temp_dir() . '/rsw_system_files_' . getmypid() . '.txt';
@unlink($f);
Co\run(function () use ($f) {
    var_dump(Co\System::readFile("/nonexistent/x"));
    var_dump(Co\System::writeFile("/nonexistent/x", "a"));
    var_dump(Co\System::writeFile($f, "ab"), Co\System::writeFile($f, "cd", FILE_APPEND), Co\System::readFile($f, LOCK_EX));
    var_dump(Co::writeFile($f, "x"), Co::readFile($f));
    $st = Co\System::statvfs("/");
    var_dump(array_keys($st), $st['bsize'] > 0, Co::getuid() === Co::getCid());
    try { Co\System::readFile(""); } catch (ValueError $e) { echo $e->getMessage(), "\n"; }
});
@unlink($f);
?>
--EXPECTF--
[%s]	WARNING	System::read_file(): open(/nonexistent/x, O_RDONLY) failed, Error: No such file or directory[2]
bool(false)
[%s]	WARNING	System::write_file(): open(/nonexistent/x, 131649) failed, Error: No such file or directory[2]
bool(false)
int(2)
int(2)
string(4) "abcd"
int(1)
string(1) "x"
array(11) {
  [0]=>
  string(5) "bsize"
  [1]=>
  string(6) "frsize"
  [2]=>
  string(6) "blocks"
  [3]=>
  string(5) "bfree"
  [4]=>
  string(6) "bavail"
  [5]=>
  string(5) "files"
  [6]=>
  string(5) "ffree"
  [7]=>
  string(6) "favail"
  [8]=>
  string(4) "fsid"
  [9]=>
  string(4) "flag"
  [10]=>
  string(7) "namemax"
}
bool(true)
bool(true)
Filename cannot be empty
