<?php
// rswoole library: the global helper functions of Swoole's PHP library (swoole_string(), swoole_array(), library options, ...).
// Our own implementation of the documented API; compiled into the module at request start.

namespace {
    if (!defined('SWOOLE_LIBRARY')) {
        define('SWOOLE_LIBRARY', true);
    }

    if (SWOOLE_USE_SHORTNAME) {
        function _string(string $string = ''): Swoole\StringObject
        {
            return new Swoole\StringObject($string);
        }

        function _mbstring(string $string = ''): Swoole\MultibyteStringObject
        {
            return new Swoole\MultibyteStringObject($string);
        }

        function _array(array $array = []): Swoole\ArrayObject
        {
            return new Swoole\ArrayObject($array);
        }
    }

    /** Process-wide options of the library (read by the pools and helpers). */
    class SwooleLibrary
    {
        /** @var array<string, mixed> */
        public static array $options = [];
    }

    function swoole_library_set_options(array $options): void
    {
        SwooleLibrary::$options = $options;
    }

    function swoole_library_get_options(): array
    {
        return SwooleLibrary::$options;
    }

    function swoole_library_set_option(string $key, mixed $value): void
    {
        SwooleLibrary::$options[$key] = $value;
    }

    function swoole_library_get_option(string $key): mixed
    {
        return SwooleLibrary::$options[$key] ?? null;
    }

    function swoole_string(string $string = ''): Swoole\StringObject
    {
        return new Swoole\StringObject($string);
    }

    function swoole_mbstring(string $string = ''): Swoole\MultibyteStringObject
    {
        return new Swoole\MultibyteStringObject($string);
    }

    function swoole_array(array $array = []): Swoole\ArrayObject
    {
        return new Swoole\ArrayObject($array);
    }

    /**
     * A Table from a column list such as "id:i, score:f, name:s:32" (types i/int, f/float, s/string with a length);
     * created before it is returned.
     */
    function swoole_table(int $size, string $fields): Swoole\Table
    {
        $table = new Swoole\Table($size, 0.25);
        foreach (explode(',', trim($fields)) as $field) {
            $parts = array_map('trim', explode(':', trim($field)));
            $name = $parts[0];
            $type = $parts[1] ?? '';
            switch ($type) {
                case 'i':
                case 'int':
                    $table->column($name, Swoole\Table::TYPE_INT);
                    break;
                case 'f':
                case 'float':
                    $table->column($name, Swoole\Table::TYPE_FLOAT);
                    break;
                case 's':
                case 'string':
                    if (count($parts) < 3) {
                        throw new RuntimeException('need to give string length');
                    }
                    $length = (int) $parts[2];
                    if ($length <= 0) {
                        throw new RuntimeException("invalid string length[{$length}]");
                    }
                    $table->column($name, Swoole\Table::TYPE_STRING, $length);
                    break;
                default:
                    throw new RuntimeException("unknown field type[{$type}]");
            }
        }
        if (!$table->create()) {
            throw new RuntimeException('failed to create table');
        }
        return $table;
    }

    function swoole_array_list(...$arrray): Swoole\ArrayObject
    {
        return new Swoole\ArrayObject($arrray);
    }

    function swoole_array_default_value(array $array, $key, $default_value = null)
    {
        return array_key_exists($key, $array) ? $array[$key] : $default_value;
    }

    /** Whether this process runs inside a container (docker, podman, kubernetes, lxc). */
    function swoole_is_in_container(): bool
    {
        if (file_exists('/.dockerenv') || file_exists('/run/.containerenv')) {
            return true;
        }
        $cgroup = @file_get_contents('/proc/1/cgroup');
        if (is_string($cgroup) && preg_match('/docker|kubepods|containerd|lxc|podman/', $cgroup)) {
            return true;
        }
        return getenv('container') !== false;
    }

    /** CPUs this container may use (its cgroup quota), else swoole_cpu_num(). */
    function swoole_container_cpu_num(): int
    {
        $max = @file_get_contents('/sys/fs/cgroup/cpu.max');
        if (is_string($max)) {
            [$quota, $period] = array_pad(explode(' ', trim($max)), 2, '100000');
            if ($quota !== 'max' && (int) $period > 0) {
                return max(1, (int) ceil((int) $quota / (int) $period));
            }
        } else {
            $quota = @file_get_contents('/sys/fs/cgroup/cpu/cpu.cfs_quota_us');
            $period = @file_get_contents('/sys/fs/cgroup/cpu/cpu.cfs_period_us');
            if (is_string($quota) && is_string($period) && (int) $quota > 0 && (int) $period > 0) {
                return max(1, (int) ceil((int) $quota / (int) $period));
            }
        }
        return swoole_cpu_num();
    }
}

namespace Swoole\Coroutine {
    if (!\function_exists('Swoole\Coroutine\deadlock_check')) {
        /**
         * Prints Swoole's "all coroutines are asleep - deadlock!" report with each live coroutine's backtrace
         * (Coroutine::set() options deadlock_check_disable_trace, deadlock_check_limit, deadlock_check_depth).
         */
        function deadlock_check()
        {
            $count = \Swoole\Coroutine::stats()['coroutine_num'];
            $rule = str_repeat('=', 64 + strlen((string) $count));
            $thin = str_repeat('-', 64 + strlen((string) $count));
            echo "\n {$rule}\n  [FATAL ERROR]: all coroutines (count: {$count}) are asleep - deadlock!\n {$rule}\n";
            $options = \Swoole\Coroutine::getOptions();
            if (empty($options['deadlock_check_disable_trace'])) {
                $limit = empty($options['deadlock_check_limit']) ? 32 : (int) $options['deadlock_check_limit'];
                $depth = empty($options['deadlock_check_depth']) ? 32 : (int) $options['deadlock_check_depth'];
                $shown = 0;
                foreach (\Swoole\Coroutine::list() as $cid) {
                    if ($shown++ >= $limit) {
                        break;
                    }
                    echo "\n  [Coroutine-{$cid}]\n {$thin}\n";
                    $frames = \Swoole\Coroutine::getBackTrace($cid, DEBUG_BACKTRACE_IGNORE_ARGS, $depth) ?: [];
                    foreach ($frames as $i => $f) {
                        $fn = isset($f['class']) ? $f['class'] . ($f['type'] ?? '::') . $f['function'] : ($f['function'] ?? '{main}');
                        $at = isset($f['file']) ? " called at [{$f['file']}:{$f['line']}]" : '';
                        echo "#{$i}  {$fn}(){$at}\n";
                    }
                }
            }
            echo "\n {$rule}\n";
        }
    }
}
