--TEST--
swoole_table: a subclass with Swoole 6.2.2's signatures (Laravel Octane's SwooleTable) loads and works
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Table;

// The shape of Laravel\Octane\Tables\SwooleTable (Octane's own class, written here from its public API).
class OctaneTable extends Table
{
    protected $columns = [];

    public function __construct(int $size, public string $label = 'x')
    {
        parent::__construct($size);
    }

    public function column(string $name, int $type, int $size = 0): bool
    {
        $this->columns[$name] = [$type, $size];
        return parent::column($name, $type, $size);
    }

    public function set(string $key, array $values): bool
    {
        foreach ($values as $column => $value) {
            [$type, $size] = $this->columns[$column];
            if ($type === Table::TYPE_STRING && strlen((string) $value) > $size) {
                throw new RuntimeException("value for [$column] is too long");
            }
        }
        return parent::set($key, $values);
    }
}

// Every other method overridden with Swoole's exact signature must load too.
class FullSignatures extends Table
{
    public function __construct(int $table_size, float $conflict_proportion = 0.2) { parent::__construct($table_size, $conflict_proportion); }
    public function create(): bool { return parent::create(); }
    public function get(string $key, ?string $field = null): array|false|string|float|int { return parent::get($key, $field); }
    public function del(string $key): bool { return parent::del($key); }
    public function exists(string $key): bool { return parent::exists($key); }
    public function incr(string $key, string $column, int|float $incrby = 1): float|int { return parent::incr($key, $column, $incrby); }
    public function decr(string $key, string $column, int|float $incrby = 1): float|int { return parent::decr($key, $column, $incrby); }
    public function count(): int { return parent::count(); }
    public function destroy(): bool { return parent::destroy(); }
    public function getSize(): int { return parent::getSize(); }
    public function getMemorySize(): int { return parent::getMemorySize(); }
    public function stats(): false|array { return parent::stats(); }
    public function rewind(): void { parent::rewind(); }
    public function next(): void { parent::next(); }
    public function current(): mixed { return parent::current(); }
    public function key(): mixed { return parent::key(); }
    public function valid(): bool { return parent::valid(); }
}

$t = new OctaneTable(100, 'cache');
var_dump($t instanceof Table, $t->label);
var_dump($t->column('value', Table::TYPE_STRING, 8), $t->column('expiration', Table::TYPE_INT));
var_dump($t->create(), $t->size);
var_dump($t->set('k', ['value' => 'abc', 'expiration' => 10]));
try {
    $t->set('k2', ['value' => str_repeat('z', 20)]);
} catch (RuntimeException $e) {
    echo $e->getMessage(), "\n";
}
var_dump($t->get('k'), count($t));

$f = new FullSignatures(64);
$f->column('n', Table::TYPE_INT);
$f->create();
var_dump($f->incr('a', 'n', 2), $f->decr('a', 'n'), $f->get('a', 'n'));
foreach ($f as $k => $row) {
    echo "$k: {$row['n']}\n";
}
?>
--EXPECT--
bool(true)
string(5) "cache"
bool(true)
bool(true)
bool(true)
int(128)
bool(true)
value for [value] is too long
array(2) {
  ["value"]=>
  string(3) "abc"
  ["expiration"]=>
  int(10)
}
int(1)
int(2)
int(1)
int(1)
a: 1
