<?php
// src/php/library_co.php: the namespaced coroutine helpers Swoole's library defines
// (Swoole\Coroutine\go/defer/batch/parallel/map, Co\go/defer), compiled at request start.
// Each is declared only if nothing defined it before.

namespace Swoole\Coroutine {
    if (!\function_exists('Swoole\Coroutine\go')) {
        /** Starts a coroutine; its cid, or false. */
        function go(callable $fn, ...$args)
        {
            return \Swoole\Coroutine::create($fn, ...$args);
        }
    }
    if (!\function_exists('Swoole\Coroutine\defer')) {
        /** Runs $fn when the current coroutine ends. */
        function defer(callable $fn)
        {
            \Swoole\Coroutine::defer($fn);
        }
    }
    if (!\function_exists('Swoole\Coroutine\batch')) {
        /** Runs every task in its own coroutine; their results by key (null for one that ran out of time). */
        function batch(array $tasks, float $timeout = -1): array
        {
            $wg = new WaitGroup(\count($tasks));
            $results = [];
            foreach ($tasks as $key => $task) {
                $results[$key] = null;
                \Swoole\Coroutine::create(static function () use ($wg, &$results, $key, $task) {
                    try {
                        $results[$key] = $task();
                    } finally {
                        $wg->done();
                    }
                });
            }
            $wg->wait($timeout);
            return $results;
        }
    }
    if (!\function_exists('Swoole\Coroutine\parallel')) {
        /** Runs $fn in $n coroutines and waits for all of them. */
        function parallel(int $n, callable $fn): void
        {
            $wg = new WaitGroup($n);
            for ($i = 0; $i < $n; $i++) {
                \Swoole\Coroutine::create(static function () use ($wg, $fn) {
                    try {
                        $fn();
                    } finally {
                        $wg->done();
                    }
                });
            }
            $wg->wait();
        }
    }
    if (!\function_exists('Swoole\Coroutine\map')) {
        /** $fn over $list, each call in its own coroutine; the results by key. */
        function map(array $list, callable $fn, float $timeout = -1): array
        {
            $tasks = [];
            foreach ($list as $key => $item) {
                $tasks[$key] = static fn () => $fn($item);
            }
            return batch($tasks, $timeout);
        }
    }
}

namespace Co {
    if (\ini_get('swoole.use_shortname') !== false && !\in_array(\strtolower((string) \ini_get('swoole.use_shortname')), ['0', 'off', 'false', 'no', ''], true)) {
        if (!\function_exists('Co\go')) {
            function go(callable $fn, ...$args)
            {
                return \Swoole\Coroutine::create($fn, ...$args);
            }
        }
        if (!\function_exists('Co\defer')) {
            function defer(callable $fn)
            {
                \Swoole\Coroutine::defer($fn);
            }
        }
    }
}
