// ui_walk.js — walks cspark's web UI in headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core) while tests/jobs/uijobs.c's ui_demo runs, and checks what every page shows
// against the job and against the REST API.
//
//   node ui_walk.js live URL SHOTS GATES     the driver's UI: every page during job 0, then the
//                                            gate opens, job -> stage -> task by clicks, stage 3
//                                            killed from its kill link, every page after
//   node ui_walk.js history URL SHOTS APP    the history server: the listing, then every page of
//                                            the application, the same figures
// Screenshots go to SHOTS. Exit status 0 when every check passed; each failed check is one line.
// Waits are bounded polls of the REST API (what the test waits for), never fixed sleeps.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const [mode, base, shots, extra] = process.argv.slice(2);
const failures = [];
function check(ok, what) {
    if (!ok) failures.push(what);
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
}

async function api(p) {
    const r = await fetch(base.replace(/\/history\/.*$/, '') + '/api/v1' + p);
    if (r.status !== 200) throw new Error(`GET /api/v1${p}: ${r.status}`);
    return r.json();
}

async function until(what, fn, timeoutMs = 120000) {
    const end = Date.now() + timeoutMs;
    for (;;) {
        if (await fn()) return true;
        if (Date.now() > end) {
            check(false, `waited for ${what}`);
            return false;
        }
        await new Promise((r) => setTimeout(r, 200));
    }
}

const text = (page, sel) => page.locator(sel).first().innerText();
const num = async (page, sel) => parseInt(await text(page, sel), 10);

async function open(page, url, name) {
    const resp = await page.goto(url);
    check(resp && resp.status() === 200, `${name}: ${url} answers 200`);
    await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
}

// Every page of the application, checked against the REST API's view of the same moment.
async function everyPage(page, root, app, tag) {
    const jobs = await api(`/applications/${app}/jobs`);
    const stages = await api(`/applications/${app}/stages`);
    const execs = await api(`/applications/${app}/executors`);
    const allExecs = await api(`/applications/${app}/allexecutors`);
    const count = (xs, f) => xs.filter(f).length;

    await open(page, `${root}/jobs/`, `${tag}-jobs`);
    check(await num(page, '#active-jobs-count') === count(jobs, (j) => j.status === 'RUNNING'),
        `${tag} jobs page: active jobs as the REST API`);
    check(await num(page, '#completed-jobs-count') === count(jobs, (j) => j.status === 'SUCCEEDED'),
        `${tag} jobs page: completed jobs as the REST API`);
    check(await page.locator('table.jobs tbody tr').count() === jobs.length,
        `${tag} jobs page: one row per job (${jobs.length})`);

    for (const j of jobs) {
        await open(page, `${root}/jobs/job/?id=${j.jobId}`, `${tag}-job-${j.jobId}`);
        check(await num(page, '#job-stage-count') === j.stageIds.length,
            `${tag} job ${j.jobId}: ${j.stageIds.length} stages`);
        check(await num(page, '#job-task-count') === j.numTasks,
            `${tag} job ${j.jobId}: ${j.numTasks} tasks`);
        check(await page.locator('.dag svg g.stage').count() === j.stageIds.length,
            `${tag} job ${j.jobId}: the DAG draws its ${j.stageIds.length} stages`);
        check(await page.locator('.dag svg line.edge').count() === j.stageIds.length - 1,
            `${tag} job ${j.jobId}: the DAG draws the shuffle between them`);
    }

    await open(page, `${root}/stages/`, `${tag}-stages`);
    for (const [id, status] of [['active', 'ACTIVE'], ['completed', 'COMPLETE'],
        ['failed', 'FAILED'], ['skipped', 'SKIPPED'], ['pending', 'PENDING']]) {
        const want = count(stages, (s) => s.status === status);
        const shown = await page.locator(`#${id}-stages-count`).count() ?
            await num(page, `#${id}-stages-count`) : 0;
        check(shown === want, `${tag} stages page: ${want} ${status} stage(s)`);
    }
    for (const s of stages) {
        if (s.status === 'PENDING' || s.status === 'SKIPPED') continue;
        await open(page, `${root}/stages/stage/?id=${s.stageId}&attempt=${s.attemptId}`,
            `${tag}-stage-${s.stageId}`);
        check(await text(page, '#stage-status') === s.status,
            `${tag} stage ${s.stageId}: status ${s.status}`);
        const rows = await page.locator('#task-table tbody tr').count();
        const tasks = s.numActiveTasks + s.numCompleteTasks + s.numFailedTasks + s.numKilledTasks;
        check(rows === tasks, `${tag} stage ${s.stageId}: ${tasks} task rows (${rows})`);
        const running = await page.locator('#task-table td.status', { hasText: 'RUNNING' }).count();
        check(running === s.numActiveTasks, `${tag} stage ${s.stageId}: ${s.numActiveTasks} running`);
        if (s.numCompleteTasks > 0)
            check(await num(page, '#summary-task-count') === s.numCompleteTasks,
                `${tag} stage ${s.stageId}: quantiles over its ${s.numCompleteTasks} tasks`);
    }

    await open(page, `${root}/storage/`, `${tag}-storage`);
    check(await num(page, '#rdd-count') === 0, `${tag} storage: no cached RDDs`);

    await open(page, `${root}/environment/`, `${tag}-environment`);
    const env = await page.locator('#spark-properties').innerText();
    check(env.includes('spark.app.name') && env.includes('spark.test.password'),
        `${tag} environment: the properties`);
    check(!env.includes('do-not-show-me') && env.includes('*********(redacted)'),
        `${tag} environment: the password is redacted`);

    await open(page, `${root}/executors/`, `${tag}-executors`);
    check(await num(page, '#active-executors') === execs.length,
        `${tag} executors: ${execs.length} active`);
    check(await page.locator('#executors-table tr.executor').count() === allExecs.length,
        `${tag} executors: a row per executor`);
    return { jobs, stages };
}

async function live(page) {
    const gates = extra;
    const app = (await api('/applications'))[0].id;
    // job 0 runs: its map tasks wait for the gate
    await until('job 0 to run 4 tasks', async () => {
        const j = await api(`/applications/${app}/jobs/0`).catch(() => null);
        return j && j.numActiveTasks === 4;
    });
    const during = await everyPage(page, base, app, 'during');
    check(during.jobs.length === 1 && during.jobs[0].status === 'RUNNING', 'during: job 0 runs');
    check(during.stages.some((s) => s.stageId === 0 && s.status === 'ACTIVE') &&
        during.stages.some((s) => s.stageId === 1 && s.status === 'PENDING'),
        'during: stage 0 active, stage 1 pending');

    fs.writeFileSync(path.join(gates, 'go'), '');
    await until('job 2 to run', async () => {
        const j = await api(`/applications/${app}/jobs/2`).catch(() => null);
        return j && j.numActiveTasks > 0;
    });

    // job -> stage -> task, by clicks
    await page.goto(`${base}/jobs/`);
    await page.click('#job-0 a.name-link');
    check((await text(page, 'h1')) === 'Details for Job 0', 'click: the job page');
    await page.click('#stage-1-0 a.name-link');
    check((await text(page, 'h1')) === 'Details for Stage 1 (Attempt 0)', 'click: the stage page');
    await page.screenshot({ path: path.join(shots, 'click-stage-1.png'), fullPage: true });
    await page.click('#task-table a.task-link');
    check((await text(page, 'h1')).startsWith('Details for Task'), 'click: the task page');
    check((await text(page, '#task-status')) === 'SUCCESS', 'click: the task succeeded');
    await page.screenshot({ path: path.join(shots, 'click-task.png'), fullPage: true });

    // kill stage 3 from its link (a POST with the page's CSRF token, after a confirmation)
    await page.goto(`${base}/stages/`);
    await page.screenshot({ path: path.join(shots, 'kill-before.png'), fullPage: true });
    page.once('dialog', (d) => d.accept());
    await Promise.all([page.waitForURL(`${base}/stages/`), page.click('#kill-stage-3')]);
    await until('job 2 to fail', async () =>
        (await api(`/applications/${app}/jobs/2`)).status === 'FAILED');
    const j2 = await api(`/applications/${app}/jobs/2`);
    check(j2.numKilledTasks > 0, `kill: job 2's running tasks were killed (${j2.numKilledTasks})`);
    await until('every task of the killed stage to end', async () =>
        (await api(`/applications/${app}/stages/3/0`)).numActiveTasks === 0);
    await page.goto(`${base}/stages/`);
    const failedRow = await page.locator('#stage-3-0').innerText();
    check(failedRow.includes('cancelled because Stage 3 was cancelled'),
        'kill: the stages page shows why stage 3 failed');
    await page.screenshot({ path: path.join(shots, 'kill-after.png'), fullPage: true });

    const after = await everyPage(page, base, app, 'after');
    check(after.jobs.map((j) => j.status).join() === 'FAILED,SUCCEEDED,SUCCEEDED',
        'after: jobs 2 failed, 1 and 0 succeeded');
    const j0 = after.jobs.find((j) => j.jobId === 0), j1 = after.jobs.find((j) => j.jobId === 1);
    check(j0.numTasks === 11 && j0.numCompletedTasks === 11, 'after: job 0 ran 8 + 3 tasks');
    check(j1.numSkippedStages === 1 && j1.numSkippedTasks === 8 && j1.numCompletedTasks === 3,
        'after: job 1 skipped stage 0 (8 tasks) and ran 3');
    const execs = await api(`/applications/${app}/allexecutors`);
    const done = execs.reduce((n, e) => n + e.completedTasks, 0);
    check(done === 14, `after: the executors completed 8 + 3 + 3 tasks (${done})`);
}

async function history(page) {
    const app = extra;
    await open(page, `${base}/`, 'history-listing');
    check(await num(page, '#app-count') === 1, 'history: one completed application listed');
    await page.click(`a[href="/history/${app}/jobs/"]`);
    check((await text(page, 'h1')) === 'Spark Jobs', 'history: the application\'s jobs page');
    const root = `${base}/history/${app}`;
    const seen = await everyPage(page, root, app, 'history');
    check(seen.jobs.length === 3, 'history: the three jobs');
    check(await page.locator('form.kill').count() === 0, 'history: no kill links');
    await page.goto(`${root}/jobs/`);
    await page.click('#job-1 a.name-link');
    await page.click('#stage-2-0 a.name-link');
    await page.click('#task-table a.task-link');
    check((await text(page, '#task-status')) === 'SUCCESS', 'history: job -> stage -> task');
}

(async () => {
    fs.mkdirSync(shots, { recursive: true });
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'cspark-chromium-'));
    const ctx = await chromium.launchPersistentContext(profile, {
        executablePath: '/usr/bin/chromium',
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
            '--disable-background-networking', '--disable-component-update', '--disable-sync'],
        viewport: { width: 1400, height: 900 },
    });
    try {
        const page = await ctx.newPage();
        page.setDefaultTimeout(60000);
        if (mode === 'live') await live(page);
        else if (mode === 'history') await history(page);
        else throw new Error(`unknown mode ${mode}`);
    } catch (e) {
        check(false, `no error: ${e.stack || e}`);
    } finally {
        await ctx.close();
        fs.rmSync(profile, { recursive: true, force: true });
    }
    console.log(`${failures.length ? 'FAIL' : 'PASS'}: ui_walk ${mode}: ${failures.length} failed`);
    process.exit(failures.length ? 1 : 0);
})();
