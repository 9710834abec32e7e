<?php
// rswoole library: Swoole\StringObject, MultibyteStringObject, ArrayObject, ObjectProxy and Exception\ArrayKeyNotExists.
// Our own implementation of the API Swoole 6.2.2's PHP library documents; compiled into the module at request start.

namespace Swoole\Exception {
    class ArrayKeyNotExists extends \RuntimeException
    {
    }
}

namespace Swoole {
    /** A string with chainable methods; methods that give a string give a new object. */
    class StringObject implements \Stringable
    {
        public function __construct(protected string $string = '')
        {
        }

        public function __toString(): string
        {
            return $this->string;
        }

        public static function from(string $string = ''): static
        {
            return new static($string);
        }

        public function length(): int
        {
            return strlen($this->string);
        }

        public function indexOf(string $needle, int $offset = 0): false|int
        {
            return strpos($this->string, $needle, $offset);
        }

        public function lastIndexOf(string $needle, int $offset = 0): false|int
        {
            return strrpos($this->string, $needle, $offset);
        }

        public function pos(string $needle, int $offset = 0): false|int
        {
            return strpos($this->string, $needle, $offset);
        }

        public function rpos(string $needle, int $offset = 0): false|int
        {
            return strrpos($this->string, $needle, $offset);
        }

        public function reverse(): static
        {
            return new static(strrev($this->string));
        }

        /** @return false|int */
        public function ipos(string $needle)
        {
            return stripos($this->string, $needle);
        }

        public function lower(): static
        {
            return new static(strtolower($this->string));
        }

        public function upper(): static
        {
            return new static(strtoupper($this->string));
        }

        public function trim(string $characters = ''): static
        {
            return new static($characters === '' ? trim($this->string) : trim($this->string, $characters));
        }

        public function ltrim(): self
        {
            return new static(ltrim($this->string));
        }

        public function rtrim(): self
        {
            return new static(rtrim($this->string));
        }

        /** @return static */
        public function substr(int $offset, ?int $length = null)
        {
            return new static(substr($this->string, $offset, $length));
        }

        public function repeat(int $times): static
        {
            return new static(str_repeat($this->string, $times));
        }

        public function append(mixed $str): static
        {
            return new static($this->string . $str);
        }

        public function replace(string $search, string $replace, &$count = null): static
        {
            return new static(str_replace($search, $replace, $this->string, $count));
        }

        public function startsWith(string $needle): bool
        {
            return str_starts_with($this->string, $needle);
        }

        public function endsWith(string $needle): bool
        {
            return str_ends_with($this->string, $needle);
        }

        public function equals($str, bool $strict = false): bool
        {
            if ($str instanceof StringObject) {
                $str = $str->string;
            }
            return $strict ? $this->string === $str : $this->string == $str;
        }

        public function contains(string $subString): bool
        {
            return str_contains($this->string, $subString);
        }

        public function split(string $delimiter, int $limit = PHP_INT_MAX): ArrayObject
        {
            return static::detectArrayType(explode($delimiter, $this->string, $limit));
        }

        public function char(int $index): string
        {
            if ($index < 0 || $index >= strlen($this->string)) {
                return '';
            }
            return $this->string[$index];
        }

        public function chunkSplit(int $length = 76, string $separator = "\r\n"): static
        {
            return new static(chunk_split($this->string, $length, $separator));
        }

        public function chunk(int $length = 1): ArrayObject
        {
            return static::detectArrayType(str_split($this->string, $length));
        }

        public function toString(): string
        {
            return $this->string;
        }

        protected static function detectArrayType(array $value): ArrayObject
        {
            return new ArrayObject($value);
        }
    }

    /** StringObject over mbstring: lengths and offsets count characters. */
    class MultibyteStringObject extends StringObject
    {
        public function length(): int
        {
            return mb_strlen($this->string);
        }

        public function indexOf(string $needle, int $offset = 0, ?string $encoding = null): false|int
        {
            return mb_strpos($this->string, $needle, $offset, $encoding);
        }

        public function lastIndexOf(string $needle, int $offset = 0, ?string $encoding = null): false|int
        {
            return mb_strrpos($this->string, $needle, $offset, $encoding);
        }

        public function pos(string $needle, int $offset = 0, ?string $encoding = null): false|int
        {
            return mb_strpos($this->string, $needle, $offset, $encoding);
        }

        public function rpos(string $needle, int $offset = 0, ?string $encoding = null): false|int
        {
            return mb_strrpos($this->string, $needle, $offset, $encoding);
        }

        public function ipos(string $needle, int $offset = 0, ?string $encoding = null): int|false
        {
            return mb_stripos($this->string, $needle, $offset, $encoding);
        }

        public function substr(int $start, ?int $length = null, ?string $encoding = null): static
        {
            return new static(mb_substr($this->string, $start, $length, $encoding));
        }

        public function chunk(int $length = 1): ArrayObject
        {
            return static::detectArrayType(mb_str_split($this->string, $length));
        }
    }

    /** An array with chainable methods; nested arrays and strings come back wrapped. */
    class ArrayObject implements \ArrayAccess, \Serializable, \Countable, \Iterator
    {
        /** @var array */
        protected $array;

        public function __construct(array $array = [])
        {
            $this->array = $array;
        }

        public function __toArray(): array
        {
            return $this->array;
        }

        public function __serialize(): array
        {
            return $this->array;
        }

        public function __unserialize(array $data): void
        {
            $this->array = $data;
        }

        public static function from(array $array = []): static
        {
            return new static($array);
        }

        public function toArray(): array
        {
            return $this->array;
        }

        public function isEmpty(): bool
        {
            return $this->array === [];
        }

        public function count(): int
        {
            return count($this->array);
        }

        #[\ReturnTypeWillChange]
        public function current()
        {
            return static::detectType(current($this->array));
        }

        #[\ReturnTypeWillChange]
        public function key()
        {
            return key($this->array);
        }

        public function valid(): bool
        {
            return key($this->array) !== null;
        }

        #[\ReturnTypeWillChange]
        public function rewind()
        {
            return reset($this->array);
        }

        #[\ReturnTypeWillChange]
        public function next()
        {
            return next($this->array);
        }

        /** The value at $key; throws Exception\ArrayKeyNotExists when there is none. */
        public function get(mixed $key)
        {
            if (!array_key_exists($key, $this->array)) {
                throw new Exception\ArrayKeyNotExists($key);
            }
            return static::detectType($this->array[$key]);
        }

        public function getOr(mixed $key, mixed $default = null)
        {
            if (!array_key_exists($key, $this->array)) {
                return $default;
            }
            return static::detectType($this->array[$key]);
        }

        public function last()
        {
            $key = array_key_last($this->array);
            return $key === null ? null : $this->get($key);
        }

        public function firstKey()
        {
            return array_key_first($this->array);
        }

        public function lastKey()
        {
            return array_key_last($this->array);
        }

        public function first()
        {
            $key = array_key_first($this->array);
            return $key === null ? null : $this->get($key);
        }

        public function set(mixed $key, mixed $value): self
        {
            $this->array[$key] = $value;
            return $this;
        }

        public function delete(mixed $key): self
        {
            unset($this->array[$key]);
            return $this;
        }

        /** Removes the first element equal to $value, or every one with $loop. */
        public function remove(mixed $value, bool $strict = true, bool $loop = false): self
        {
            do {
                $key = $this->search($value, $strict);
                if ($key === false) {
                    break;
                }
                unset($this->array[$key]);
            } while ($loop);
            return $this;
        }

        public function clear(): self
        {
            $this->array = [];
            return $this;
        }

        #[\ReturnTypeWillChange]
        public function offsetGet(mixed $key)
        {
            if (!array_key_exists($key, $this->array)) {
                return null;
            }
            return $this->array[$key];
        }

        public function offsetSet(mixed $key, mixed $value): void
        {
            if ($key === null) {
                $this->array[] = $value;
            } else {
                $this->array[$key] = $value;
            }
        }

        public function offsetUnset(mixed $key): void
        {
            unset($this->array[$key]);
        }

        #[\ReturnTypeWillChange]
        public function offsetExists(mixed $key)
        {
            return isset($this->array[$key]);
        }

        public function exists(mixed $key): bool
        {
            return array_key_exists($key, $this->array);
        }

        public function contains(mixed $value, bool $strict = true): bool
        {
            return in_array($value, $this->array, $strict);
        }

        public function indexOf(mixed $value, bool $strict = true)
        {
            return $this->search($value, $strict);
        }

        public function lastIndexOf(mixed $value, bool $strict = true)
        {
            $found = false;
            foreach ($this->array as $k => $v) {
                if ($strict ? $v === $value : $v == $value) {
                    $found = $k;
                }
            }
            return $found;
        }

        public function search(mixed $needle, bool $strict = true)
        {
            return array_search($needle, $this->array, $strict);
        }

        public function join(string $glue = ''): StringObject
        {
            return static::detectStringType(implode($glue, $this->array));
        }

        public function serialize(): string
        {
            return serialize($this->array);
        }

        public function unserialize(string|\Stringable|StringObject $string): self
        {
            $data = unserialize((string) $string);
            $this->array = is_array($data) ? $data : [];
            return $this;
        }

        public function sum()
        {
            return array_sum($this->array);
        }

        public function product()
        {
            return array_product($this->array);
        }

        public function push(mixed $value)
        {
            return $this->pushBack($value);
        }

        public function pushFront(mixed $value)
        {
            return array_unshift($this->array, $value);
        }

        public function append(...$values): ArrayObject
        {
            array_push($this->array, ...$values);
            return $this;
        }

        public function pushBack(mixed $value)
        {
            return array_push($this->array, $value);
        }

        public function insert(int $offset, mixed $value): self
        {
            array_splice($this->array, $offset, 0, [$value]);
            return $this;
        }

        public function pop()
        {
            return $this->popBack();
        }

        public function popFront()
        {
            return array_shift($this->array);
        }

        public function popBack()
        {
            return array_pop($this->array);
        }

        public function slice(int $offset, ?int $length = null, bool $preserve_keys = false): static
        {
            return new static(array_slice($this->array, $offset, $length, $preserve_keys));
        }

        public function randomGet()
        {
            if ($this->array === []) {
                return null;
            }
            return static::detectType($this->array[array_rand($this->array)]);
        }

        public function each(callable $fn): self
        {
            array_walk($this->array, $fn);
            return $this;
        }

        public function map(callable $fn, ...$args): static
        {
            return new static(array_map($fn, $this->array, ...$args));
        }

        public function reduce(callable $fn, $initial = null)
        {
            return array_reduce($this->array, $fn, $initial);
        }

        public function keys(...$args): static
        {
            return new static(array_keys($this->array, ...$args));
        }

        public function values(): static
        {
            return new static(array_values($this->array));
        }

        public function column(mixed $column_key, mixed $index = null): static
        {
            return new static(array_column($this->array, $column_key, $index));
        }

        public function unique(int $sort_flags = SORT_STRING): static
        {
            return new static(array_unique($this->array, $sort_flags));
        }

        public function reverse(bool $preserve_keys = false): static
        {
            return new static(array_reverse($this->array, $preserve_keys));
        }

        public function chunk(int $size, bool $preserve_keys = false): static
        {
            return new static(array_chunk($this->array, $size, $preserve_keys));
        }

        public function flip(): static
        {
            return new static(array_flip($this->array));
        }

        public function filter(callable $fn, int $flag = 0): static
        {
            return new static(array_filter($this->array, $fn, $flag));
        }

        public function asort(int $sort_flags = SORT_REGULAR): self
        {
            asort($this->array, $sort_flags);
            return $this;
        }

        public function arsort(int $sort_flags = SORT_REGULAR): self
        {
            arsort($this->array, $sort_flags);
            return $this;
        }

        public function krsort(int $sort_flags = SORT_REGULAR): self
        {
            krsort($this->array, $sort_flags);
            return $this;
        }

        public function ksort(int $sort_flags = SORT_REGULAR): self
        {
            ksort($this->array, $sort_flags);
            return $this;
        }

        public function natcasesort(): self
        {
            natcasesort($this->array);
            return $this;
        }

        public function natsort(): self
        {
            natsort($this->array);
            return $this;
        }

        public function rsort(int $sort_flags = SORT_REGULAR): self
        {
            rsort($this->array, $sort_flags);
            return $this;
        }

        public function shuffle(): self
        {
            shuffle($this->array);
            return $this;
        }

        public function sort(int $sort_flags = SORT_REGULAR): self
        {
            sort($this->array, $sort_flags);
            return $this;
        }

        public function uasort(callable $value_compare_func): self
        {
            uasort($this->array, $value_compare_func);
            return $this;
        }

        public function uksort(callable $value_compare_func): self
        {
            uksort($this->array, $value_compare_func);
            return $this;
        }

        public function usort(callable $value_compare_func): self
        {
            usort($this->array, $value_compare_func);
            return $this;
        }

        protected static function detectType(mixed $value)
        {
            if (is_string($value)) {
                return static::detectStringType($value);
            }
            if (is_array($value)) {
                return static::detectArrayType($value);
            }
            return $value;
        }

        protected static function detectStringType(string $value): StringObject
        {
            return new StringObject($value);
        }

        protected static function detectArrayType(array $value): static
        {
            return new static($value);
        }
    }

    /** Forwards property access and calls to the wrapped object. */
    class ObjectProxy
    {
        /** @var object */
        protected $__object;

        public function __construct(object $object)
        {
            $this->__object = $object;
        }

        public function __getObject()
        {
            return $this->__object;
        }

        public function __get(string $name)
        {
            return $this->__object->{$name};
        }

        public function __set(string $name, $value): void
        {
            $this->__object->{$name} = $value;
        }

        public function __isset($name)
        {
            return isset($this->__object->{$name});
        }

        public function __unset(string $name): void
        {
            unset($this->__object->{$name});
        }

        public function __call(string $name, array $arguments)
        {
            return $this->__object->{$name}(...$arguments);
        }

        public function __invoke(...$arguments)
        {
            $object = $this->__object;
            return $object(...$arguments);
        }
    }
}
