--TEST--
swoole_function: swoole_substr_unserialize() and swoole_substr_json_decode() decode a part of a string (offsets, lengths, flags, warnings, exceptions)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
$s = serialize(['a' => 1]);
$buf = "XXXX" . $s . "YYYY";
var_dump(swoole_substr_unserialize($buf, 4, strlen($s)));
var_dump(swoole_substr_unserialize("", 0), swoole_substr_unserialize("abc", 5), swoole_substr_unserialize("abc", -9));
$j = '{"k":[1,2],"o":{"x":true}}';
var_dump(swoole_substr_json_decode("..$j", 2));
var_dump(swoole_substr_json_decode("..$j", 2, 0, true));
var_dump(swoole_substr_json_decode("..$j", -strlen($j), 0, null, 512, JSON_OBJECT_AS_ARRAY)['o']);
var_dump(swoole_substr_json_decode("", 0));
var_dump(swoole_substr_json_decode("abc", 3));
try { swoole_substr_json_decode("..{bad", 2, 0, false, 512, JSON_THROW_ON_ERROR); } catch (JsonException $e) { echo get_class($e), ": ", $e->getMessage(), "\n"; }
var_dump(swoole_substr_unserialize(serialize(new ArrayObject([1])), 0, 0, ['allowed_classes' => false]) instanceof __PHP_Incomplete_Class);
?>
--EXPECTF--
array(1) {
  ["a"]=>
  int(1)
}
bool(false)
bool(false)
bool(false)
object(stdClass)#1 (2) {
  ["k"]=>
  array(2) {
    [0]=>
    int(1)
    [1]=>
    int(2)
  }
  ["o"]=>
  object(stdClass)#2 (1) {
    ["x"]=>
    bool(true)
  }
}
array(2) {
  ["k"]=>
  array(2) {
    [0]=>
    int(1)
    [1]=>
    int(2)
  }
  ["o"]=>
  array(1) {
    ["x"]=>
    bool(true)
  }
}
array(1) {
  ["x"]=>
  bool(true)
}

Warning: swoole_substr_json_decode(): Non-empty string required in %s on line %d
NULL

Warning: swoole_substr_json_decode(): Offset must be less than the length of the string in %s on line %d
NULL
JsonException: Syntax error
bool(true)
