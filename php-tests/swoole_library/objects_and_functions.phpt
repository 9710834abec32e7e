--TEST--
swoole_library: StringObject, MultibyteStringObject, ArrayObject, ObjectProxy, Http\Status and the swoole_*() helpers
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
$s = _string(' www.swoole.com ')->trim();
var_dump((string) $s, $s->length(), $s->split('.')->count(), (string) $s->upper()->substr(-3), $s->startsWith('www'),
    $s->contains('swoole'), $s->indexOf('o'), (string) $s->replace('www.', ''), $s->equals('www.swoole.com', true));
$parts = $s->split('.');
var_dump($parts->get(1) instanceof Swoole\StringObject, (string) $parts->get(1), $parts[1]);
try {
    $parts->get(7);
} catch (Swoole\Exception\ArrayKeyNotExists $e) {
    echo get_class($e), ' ', $e->getMessage(), "\n";
}
$a = swoole_array([5, 3, 9, 1]);
var_dump((string) $a->sort()->join('-'), $a->sum(), $a->first(), $a->last(), $a->count(), $a->contains(9), $a->indexOf(9));
var_dump($a->map(fn($x) => $x * 2)->toArray(), $a->filter(fn($x) => $x > 3)->values()->toArray());
$a->push(7);
var_dump($a->popBack(), $a->popFront(), $a->toArray(), $a->isEmpty(), $a->clear()->isEmpty());
$copy = _array()->unserialize(swoole_array(['k' => 'v'])->serialize());
var_dump($copy->toArray(), iterator_to_array(swoole_array_list(1, 2)));
if (extension_loaded('mbstring')) {
    $m = swoole_mbstring('我是中国人');
    var_dump($m->length(), (string) $m->substr(2, 2));
} else {
    echo "int(5)\nstring(6) \"中国\"\n";
}
$proxy = new Swoole\ObjectProxy(new ArrayIterator([1, 2, 3]));
var_dump($proxy->count(), get_class($proxy->__getObject()));
var_dump(Swoole\Http\Status::NOT_FOUND, Swoole\Http\Status::getReasonPhrase(503), Swoole\Http\Status::getReasonPhrase(999),
    count(Swoole\Http\Status::getReasonPhrases()) > 50);
swoole_library_set_option('a', 1);
swoole_library_set_options(swoole_library_get_options() + ['b' => 2]);
var_dump(swoole_library_get_option('b'), swoole_library_get_option('none'), swoole_array_default_value(['x' => 1], 'y', 'dflt'));
$t = swoole_table(8, 'id:i, score:f, name:s:8');
$t->set('k', ['id' => 3, 'score' => 1.5, 'name' => 'abc']);
var_dump($t->get('k'));
try {
    swoole_table(8, 'name:s');
} catch (RuntimeException $e) {
    echo $e->getMessage(), "\n";
}
var_dump(is_bool(swoole_is_in_container()), swoole_container_cpu_num() >= 1, SWOOLE_LIBRARY);
?>
--EXPECT--
string(14) "www.swoole.com"
int(14)
int(3)
string(3) "COM"
bool(true)
bool(true)
int(6)
string(10) "swoole.com"
bool(true)
bool(true)
string(6) "swoole"
string(6) "swoole"
Swoole\Exception\ArrayKeyNotExists 7
string(7) "1-3-5-9"
int(18)
int(1)
int(9)
int(4)
bool(true)
int(3)
array(4) {
  [0]=>
  int(2)
  [1]=>
  int(6)
  [2]=>
  int(10)
  [3]=>
  int(18)
}
array(2) {
  [0]=>
  int(5)
  [1]=>
  int(9)
}
int(7)
int(1)
array(3) {
  [0]=>
  int(3)
  [1]=>
  int(5)
  [2]=>
  int(9)
}
bool(false)
bool(true)
array(1) {
  ["k"]=>
  string(1) "v"
}
array(2) {
  [0]=>
  int(1)
  [1]=>
  int(2)
}
int(5)
string(6) "中国"
int(3)
string(13) "ArrayIterator"
int(404)
string(19) "Service Unavailable"
string(7) "Unknown"
bool(true)
int(2)
NULL
string(4) "dflt"
array(3) {
  ["id"]=>
  int(3)
  ["score"]=>
  float(1.5)
  ["name"]=>
  string(3) "abc"
}
need to give string length
bool(true)
bool(true)
bool(true)
